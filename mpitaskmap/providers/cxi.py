"""HPE Slingshot (Cray EX) coordinates from libfabric's CXI provider (not collective).

Every process asks libfabric for its Cassini NIC's place on the dragonfly: the NIC's group,
switch and switch port.  Two ways, the first that works (``source=``):

1. **The topology call** of the CXI provider's domain extension: ``fi_getinfo``, then
   ``fi_fabric`` and ``fi_domain`` on the NIC's ``fi_info``, ``fi_open_ops(&domain->fid,
   "dom_ops_v1", 0, &ops, NULL)`` and ``ops->topology(&domain->fid, &group, &switch,
   &port)``; the domain and the fabric are closed again.
2. **The NIC address** of the ``fi_info`` (``src_addr``, address format ``FI_ADDR_CXI``),
   decoded as the CXI provider's ``struct cxip_topo_addr`` does (:func:`decode_nic_address`):
   port bits 0-5, switch bits 6-10, group bits 11-19 of the 20-bit NIC address.  Used when
   the topology call is unavailable (an older provider, a domain that will not open
   outside a job step); ``last_nic.source`` says which way a rank took and why.

C interface used (through ctypes, no header at install time; ``rdma/fabric.h``,
``rdma/fi_domain.h``, ``prov/cxi/include/fi_cxi_ext.h`` of ofiwg/libfabric):

``uint32_t fi_version(void)``, ``int fi_getinfo(uint32_t version, const char *node, const
char *service, uint64_t flags, const struct fi_info *hints, struct fi_info **info)``,
``void fi_freeinfo(struct fi_info *)``, ``int fi_fabric(struct fi_fabric_attr *, struct
fid_fabric **, void *context)``
    Exported functions.  ``fi_getinfo`` is called with the library's own version and no
    hints; the entries whose ``fabric_attr->prov_name`` is ``"cxi"`` are the NICs, named by
    ``domain_attr->name`` (``cxi0``, ``cxi1``, ...).
``fi_domain``, ``fi_open_ops``, ``fi_close``
    Static inline in the headers: calls through the function tables of ``struct
    fid_fabric`` (``ops->domain``) and ``struct fid`` (``ops->ops_open``, ``ops->close``),
    whose ``size`` fields are checked before a slot is used.
``struct fi_cxi_dom_ops``
    ``cntr_read`` then ``topology(struct fid *, unsigned int *group_id, unsigned int
    *switch_id, unsigned int *port_id)``; every ``dom_ops_v1`` .. ``v6`` starts so.

The struct layouts mirrored here (:class:`_Info` and the others) are the ABI of libfabric
1.x; the 20-bit NIC address sits at bit 9 of the 32-bit ``struct cxip_addr`` (``pid:9,
nic:20``, :data:`CXI_PID_BITS`, :data:`CXI_NIC_BITS`).

**The machine** (:class:`~mpitaskmap.machines.DragonflyMachine`, a ``"dragonfly"`` network):
a rank's location is ``(group, switch, port)``: a node of the machine is one switch port, so
``nodes_per_switch`` defaults to 64, every port number the 6-bit field can hold, and a
node link is one NIC link.  Node key: ``HOST/cxiN``, so the ranks of a host that use one NIC
are one node and a host's NICs are different nodes.  The shape of the network is not in the
NIC's address; it comes from ``preset=`` (``frontier``, default, or ``perlmutter``:
groups, switches per group, global links per pair of groups, from
:data:`~mpitaskmap.machines.dragonfly.presets.DRAGONFLY_PRESETS`) and the keys that
override it; when the spec gives none of them, rank 0 logs a warning saying which shape it
assumed.  Switches of a group are joined all-to-all (Slingshot).

Spec: ``cxi[:lib=,nic=cxi0,source=auto|topology|address,preset=frontier,n_groups=,
switches=,nodes_per_switch=64,global_links=,global_ports=,bw=25,routing=minimal]``.

Environment
-----------
``MPITASKMAP_CXI_LIB``
    libfabric to load (path or soname); default ``libfabric.so.1``, then ``libfabric.so``.
``MPITASKMAP_CXI_NIC``
    The NIC (``cxi0``, ...) whose place a rank reports; default: the first that
    ``fi_getinfo`` lists.
"""

from __future__ import annotations

import ctypes
import logging
import os
import socket
from typing import NamedTuple

from .._textio import counted
from .._options import parse_choice, parse_float, parse_int
from ..errors import InvalidInputError, ProviderError
from ..machines import DragonflyMachine
from ..machines.dragonfly import DRAGONFLY_ROUTINGS, dragonfly_network
from ..machines.dragonfly.presets import DRAGONFLY_PRESETS
from ._base import Location, NetworkInfo, Provider, check_rank
from ._util import CLibrary, read_env

__all__ = ["CxiProvider", "CxiNic", "decode_nic_address", "CXI_KEYS", "CXI_PRESETS", "DEFAULT_CXI_LIBS"]

logger = logging.getLogger(__name__)

DEFAULT_CXI_LIBS = ("libfabric.so.1", "libfabric.so")
#: Keys of the ``cxi`` spec.
CXI_KEYS = ("lib", "nic", "source", "preset", "n_groups", "switches", "nodes_per_switch", "global_links",
            "global_ports", "bw", "routing")
#: The Slingshot presets whose shape ``preset=`` takes (all-to-all groups).
CXI_PRESETS = ("frontier", "perlmutter")
#: Ways to the NIC's place: ``auto`` (topology call, else the address), ``topology``, ``address``.
CXI_SOURCES = ("auto", "topology", "address")
#: Bits of ``struct cxip_addr``: the PID field below the NIC address (C_DFA_PID_BITS_MAX, C_DFA_NIC_BITS).
CXI_PID_BITS, CXI_NIC_BITS = 9, 20
#: Bits of ``struct cxip_topo_addr``'s dragonfly form, lowest first (CXIP_ADDR_PORT/SWITCH/GROUP_BITS).
CXI_PORT_BITS, CXI_SWITCH_BITS, CXI_GROUP_BITS = 6, 5, 9
#: ``FI_ADDR_CXI`` of libfabric's address formats (``rdma/fabric.h``).
FI_ADDR_CXI = 15
#: ``FI_CLASS_DOMAIN`` (``rdma/fabric.h``): the topology call checks the fid's class.
FI_CLASS_DOMAIN = 2
#: The domain extension holding the topology call (``FI_CXI_DOM_OPS_1``).
DOM_OPS_NAME = b"dom_ops_v1"
_P = ctypes.sizeof(ctypes.c_void_p)


# -- the ABI of libfabric 1.x, as far as it is used ------------------------------------------------------------
class _FabricAttr(ctypes.Structure):
    _fields_ = [("fabric", ctypes.c_void_p), ("name", ctypes.c_char_p), ("prov_name", ctypes.c_char_p),
                ("prov_version", ctypes.c_uint32), ("api_version", ctypes.c_uint32)]


class _DomainAttrHead(ctypes.Structure):  # the first two fields of struct fi_domain_attr
    _fields_ = [("domain", ctypes.c_void_p), ("name", ctypes.c_char_p)]


class _Info(ctypes.Structure):
    pass


_Info._fields_ = [("next", ctypes.POINTER(_Info)), ("caps", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                  ("addr_format", ctypes.c_uint32), ("src_addrlen", ctypes.c_size_t),
                  ("dest_addrlen", ctypes.c_size_t), ("src_addr", ctypes.c_void_p), ("dest_addr", ctypes.c_void_p),
                  ("handle", ctypes.c_void_p), ("tx_attr", ctypes.c_void_p), ("rx_attr", ctypes.c_void_p),
                  ("ep_attr", ctypes.c_void_p), ("domain_attr", ctypes.POINTER(_DomainAttrHead)),
                  ("fabric_attr", ctypes.POINTER(_FabricAttr)), ("nic", ctypes.c_void_p)]

_CLOSE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_OPS_OPEN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64,
                             ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p)
_DOMAIN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_Info), ctypes.POINTER(ctypes.c_void_p),
                           ctypes.c_void_p)
_UINT_P = ctypes.POINTER(ctypes.c_uint)
_TOPOLOGY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, _UINT_P, _UINT_P, _UINT_P)


class _FiOps(ctypes.Structure):  # struct fi_ops
    _fields_ = [("size", ctypes.c_size_t), ("close", _CLOSE), ("bind", ctypes.c_void_p),
                ("control", ctypes.c_void_p), ("ops_open", _OPS_OPEN)]


class _Fid(ctypes.Structure):  # struct fid: every fabric object starts with it
    _fields_ = [("fclass", ctypes.c_size_t), ("context", ctypes.c_void_p), ("ops", ctypes.POINTER(_FiOps))]


class _FiOpsFabric(ctypes.Structure):  # the first slots of struct fi_ops_fabric
    _fields_ = [("size", ctypes.c_size_t), ("domain", _DOMAIN)]


class _FidFabric(ctypes.Structure):
    _fields_ = [("fid", _Fid), ("ops", ctypes.POINTER(_FiOpsFabric))]


class _CxiDomOps(ctypes.Structure):  # the first slots of struct fi_cxi_dom_ops
    _fields_ = [("cntr_read", ctypes.c_void_p), ("topology", _TOPOLOGY)]


#: Bytes of a function table that must be present to call a slot: its offset plus a pointer.
_OPS_OPEN_END = _FiOps.ops_open.offset + _P
_CLOSE_END = _FiOps.close.offset + _P
_DOMAIN_END = _FiOpsFabric.domain.offset + _P
#: The exported functions called, and their signatures (restype, argtypes).
_FUNCTIONS = {
    "fi_version": (ctypes.c_uint32, []),
    "fi_getinfo": (ctypes.c_int, [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint64, ctypes.c_void_p,
                                  ctypes.POINTER(ctypes.POINTER(_Info))]),
    "fi_freeinfo": (None, [ctypes.POINTER(_Info)]),
    "fi_fabric": (ctypes.c_int, [ctypes.POINTER(_FabricAttr), ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p])}


def decode_nic_address(nic_addr: int) -> tuple[int, int, int]:
    """Return ``(group, switch, port)`` of a 20-bit Slingshot NIC address (the CXI provider's dragonfly decoding).

    Port bits 0-5, switch bits 6-10, group bits 11-19, as ``struct cxip_topo_addr`` reads
    the address in the CXI provider's topology call.

    Raises
    ------
    InvalidInputError
        On a value that is not a 20-bit address.

    Examples
    --------
    >>> decode_nic_address(0x2A1C5)   # group 84, switch 7, port 5
    (84, 7, 5)
    """
    if isinstance(nic_addr, bool) or not isinstance(nic_addr, int) or not 0 <= nic_addr < 1 << CXI_NIC_BITS:
        raise InvalidInputError(f"nic_addr: expected a {CXI_NIC_BITS}-bit NIC address; got {nic_addr!r}")
    port = nic_addr & ((1 << CXI_PORT_BITS) - 1)
    switch = (nic_addr >> CXI_PORT_BITS) & ((1 << CXI_SWITCH_BITS) - 1)
    group = (nic_addr >> (CXI_PORT_BITS + CXI_SWITCH_BITS)) & ((1 << CXI_GROUP_BITS) - 1)
    return group, switch, port


class CxiNic(NamedTuple):
    """One NIC's place as the ``cxi`` provider found it.

    Attributes
    ----------
    domain : str
        libfabric domain name of the NIC (``cxi0``).
    nic_addr : int or None
        Its 20-bit NIC address (None if ``fi_getinfo`` gave no ``FI_ADDR_CXI`` address).
    group, switch, port : int
        Its place on the dragonfly.
    source : str
        ``"topology"`` or ``"address"``: which way gave the place.
    note : str
        Why the topology call was not used ("" if it was, or not asked for).
    """

    domain: str
    nic_addr: int | None
    group: int
    switch: int
    port: int
    source: str
    note: str


class CxiProvider(Provider):
    """Locate this process's Slingshot NIC on a dragonfly through libfabric's CXI provider (module notes).

    Not collective; describes the calling process whatever ``rank`` is.

    Parameters
    ----------
    lib : str, optional
        libfabric to load; default ``$MPITASKMAP_CXI_LIB``, else ``libfabric.so.1``,
        ``libfabric.so``.
    nic : str, optional
        Domain name of the NIC to report (``cxi1``); default ``$MPITASKMAP_CXI_NIC``, else
        the first NIC ``fi_getinfo`` lists.
    source : {"auto", "topology", "address"}, optional
        The topology call, falling back to the NIC address (default); only the call; only
        the address (no fabric or domain is opened).
    preset : {"frontier", "perlmutter"}, optional
        Shape of the network (default ``"frontier"``: 74 groups of 32 switches, 4 global
        links per pair of groups).
    n_groups, switches, global_links, global_ports : int or str, optional
        Override the preset's shape (``switches``: switches per group, all-to-all).
    nodes_per_switch : int or str, optional
        Ports per switch that a NIC can sit on (default 64).
    bw : float or str, optional
        GB/s of every link (default 25, Slingshot's 200 Gb/s).
    routing : {"minimal", "ecmp", "valiant", "ugal", "either"}, optional

    Raises
    ------
    InvalidInputError
        On a bad option value or an impossible shape, naming it.

    Examples
    --------
    >>> p = CxiProvider(preset="perlmutter", routing="valiant")
    >>> p.spec, p.network().dims
    ('cxi:preset=perlmutter,routing=valiant', (12, 32, 64))
    """

    name = "cxi"
    rank_addressable = False

    def __init__(self, **options) -> None:
        super().__init__()
        o, what = self._read_options(options, CXI_KEYS)
        self._lib_arg, self._nic_arg = o.get("lib"), o.get("nic")
        self.source = parse_choice(o.get("source", "auto"), "source", what, CXI_SOURCES)
        self.preset = parse_choice(o.get("preset", "frontier"), "preset", what, CXI_PRESETS)
        p = DRAGONFLY_PRESETS[self.preset]
        shape = {"n_groups": parse_int(o.get("n_groups", p["n_groups"]), "n_groups", what, minimum=2),
                 "switches": parse_int(o.get("switches", p["switches"]), "switches", what),
                 "nodes_per_switch": parse_int(o.get("nodes_per_switch", 1 << CXI_PORT_BITS), "nodes_per_switch",
                                               what),
                 "global_links": parse_int(o.get("global_links", p["global_links"]), "global_links", what)}
        ports = o.get("global_ports", p["global_ports"])
        bw = parse_float(o.get("bw", 25.0), "bw", what, positive=True)
        routing = parse_choice(o.get("routing", "minimal"), "routing", what, DRAGONFLY_ROUTINGS)
        try:
            shape_machine = DragonflyMachine(
                shape["n_groups"], shape["switches"], shape["nodes_per_switch"], [0],
                global_links=shape["global_links"],
                global_ports=None if ports is None else parse_int(ports, "global_ports", what),
                bandwidth=bw, routing=routing)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{what}: {exc}") from None
        self._network = dragonfly_network(shape_machine)
        #: Whether the spec says the network's shape; if not, rank 0 warns what it assumes.
        self._shape_given = any(k in o for k in ("preset", "n_groups", "switches", "global_links", "global_ports"))
        self._warned = False
        self._clib = CLibrary("cxi (libfabric)", _FUNCTIONS, self.library_candidates)
        self.last_nic: CxiNic | None = None

    def library_candidates(self) -> list[str]:
        """Return the libraries tried, in order."""
        explicit = self._lib_arg or read_env("MPITASKMAP_CXI_LIB")
        return [explicit] if explicit else list(DEFAULT_CXI_LIBS)

    def nic(self) -> CxiNic:
        """Return this process's NIC and its place (module notes); also kept in ``last_nic``.

        Raises
        ------
        ProviderError
            No libfabric, ``fi_getinfo`` failing, no CXI NIC (or not the one asked for),
            or neither the topology call nor the NIC address giving the place (with
            ``source=topology``: the call failing; with ``source=address``: no address).
        """
        lib = self._clib.get()
        head = ctypes.POINTER(_Info)()
        rc = lib.fi_getinfo(lib.fi_version(), None, None, 0, None, ctypes.byref(head))
        if rc != 0:
            raise ProviderError(f"cxi: fi_getinfo returned {rc} ({_errno_text(rc)}) (library {self._clib.label})")
        try:
            info, domain = self._pick(head)
            self.last_nic = self._place(info, domain)
        finally:
            lib.fi_freeinfo(head)
        return self.last_nic

    def _pick(self, head) -> tuple:
        """The first ``fi_info`` of the wanted CXI NIC in the list, and the NIC's name."""
        wanted = self._nic_arg or read_env("MPITASKMAP_CXI_NIC")
        providers: list[str] = []
        nics: dict[str, object] = {}
        entry = head
        while entry:
            fab, dom = entry.contents.fabric_attr, entry.contents.domain_attr
            prov = (fab.contents.prov_name or b"").decode("utf-8", "replace") if fab else ""
            if prov not in providers:
                providers.append(prov)
            if prov == "cxi" and dom and dom.contents.name:
                nics.setdefault(dom.contents.name.decode("utf-8", "replace"), entry)
            entry = entry.contents.next
        if not nics:
            seen = ", ".join(p for p in providers if p) or "none"
            raise ProviderError(f"cxi: libfabric ({self._clib.label}) lists no CXI NIC (providers: {seen}): not an "
                                "HPE Slingshot node")
        if wanted is None:
            wanted = next(iter(nics))
        elif wanted not in nics:
            raise ProviderError(f"cxi: no CXI NIC named {wanted!r}; libfabric ({self._clib.label}) lists "
                                f"{list(nics)}")
        return nics[wanted], wanted

    def _place(self, info, domain: str) -> CxiNic:
        i = info.contents
        nic_addr = None
        if i.addr_format == FI_ADDR_CXI and i.src_addr and i.src_addrlen >= 4:
            raw = ctypes.c_uint32.from_address(i.src_addr).value
            nic_addr = (raw >> CXI_PID_BITS) & ((1 << CXI_NIC_BITS) - 1)
        note = ""
        if self.source != "address":
            try:
                return CxiNic(domain, nic_addr, *self._topology(info, domain), "topology", "")
            except ProviderError as exc:
                if self.source == "topology":
                    raise
                note = str(exc).removeprefix("cxi: ")
        if nic_addr is None:
            why = f"{note}; " if note else ""
            raise ProviderError(f"cxi: {why}NIC {domain} has no FI_ADDR_CXI source address to decode (address "
                                f"format {i.addr_format}, {i.src_addrlen} bytes)")
        return CxiNic(domain, nic_addr, *decode_nic_address(nic_addr), "address", note)

    def _topology(self, info, domain: str) -> tuple[int, int, int]:
        """``(group, switch, port)`` from the CXI domain extension's topology call."""
        lib = self._clib.get()
        fabric = ctypes.c_void_p()
        rc = lib.fi_fabric(info.contents.fabric_attr, ctypes.byref(fabric), None)
        if rc != 0 or not fabric:
            raise ProviderError(f"cxi: fi_fabric for NIC {domain} returned {rc} ({_errno_text(rc)})")
        try:
            fab = ctypes.cast(fabric, ctypes.POINTER(_FidFabric)).contents
            if not fab.ops or fab.ops.contents.size < _DOMAIN_END or not fab.ops.contents.domain:
                raise ProviderError(f"cxi: the fabric of NIC {domain} has no domain call in its function table")
            dom = ctypes.c_void_p()
            rc = fab.ops.contents.domain(fabric, info, ctypes.byref(dom), None)
            if rc != 0 or not dom:
                raise ProviderError(f"cxi: fi_domain on NIC {domain} returned {rc} ({_errno_text(rc)})")
            try:
                return self._call_topology(dom, domain)
            finally:
                _close(dom)
        finally:
            _close(fabric)

    @staticmethod
    def _call_topology(dom, domain: str) -> tuple[int, int, int]:
        fid = ctypes.cast(dom, ctypes.POINTER(_Fid)).contents
        if not fid.ops or fid.ops.contents.size < _OPS_OPEN_END or not fid.ops.contents.ops_open:
            raise ProviderError(f"cxi: the domain of NIC {domain} has no fi_open_ops in its function table")
        ops = ctypes.c_void_p()
        rc = fid.ops.contents.ops_open(dom, DOM_OPS_NAME, 0, ctypes.byref(ops), None)
        if rc != 0 or not ops:
            raise ProviderError(f"cxi: fi_open_ops(\"{DOM_OPS_NAME.decode()}\") on NIC {domain} returned {rc} "
                                f"({_errno_text(rc)})")
        topology = ctypes.cast(ops, ctypes.POINTER(_CxiDomOps)).contents.topology
        if not topology:
            raise ProviderError(f"cxi: the {DOM_OPS_NAME.decode()} extension of NIC {domain} has no topology call")
        out = [ctypes.c_uint(0xFFFFFFFF) for _ in range(3)]
        rc = topology(dom, *(ctypes.byref(v) for v in out))
        if rc != 0:
            raise ProviderError(f"cxi: the topology call on NIC {domain} returned {rc} ({_errno_text(rc)})")
        return out[0].value, out[1].value, out[2].value

    def check(self) -> None:
        """Raise ProviderError unless libfabric loads and this process's CXI NIC has a place on the network."""
        self._inside(self.nic(), None)

    def _inside(self, nic: CxiNic, rank: int | None) -> None:
        dims = self._network.dims
        for value, size, word, key in zip((nic.group, nic.switch, nic.port), dims, ("group", "switch", "port"),
                                          ("n_groups", "switches", "nodes_per_switch")):
            if value >= size:
                who = "" if rank is None else f"rank {rank}: "
                addr = "" if nic.nic_addr is None else f", NIC address {nic.nic_addr:#07x}"
                how = "the topology call" if nic.source == "topology" else "its NIC address"
                raise ProviderError(f"cxi: {who}NIC {nic.domain}{addr} is on {word} {value} (from {how}), outside "
                                    f"the {size} of the network ({key}={size}, preset {self.preset}): pass {key}= "
                                    "in the spec")

    def locate(self, rank: int, size: int) -> Location:
        """Return ``(group, switch, port)`` of this process's NIC and the node key ``HOST/cxiN``.

        Raises
        ------
        ProviderError
            As :meth:`nic`, or a place outside the network's shape.
        """
        rank, size = check_rank(rank, size)
        nic = self.nic()
        self._inside(nic, rank)
        host = socket.gethostname()
        if not host:
            raise ProviderError("cxi: socket.gethostname() returned an empty name")
        if rank == 0:
            addr = "no address" if nic.nic_addr is None else f"address {nic.nic_addr:#07x}"
            logger.info("cxi: rank 0 on %s NIC %s (%s): group %d, switch %d, port %d from the %s%s", host,
                        nic.domain, addr, nic.group, nic.switch, nic.port, nic.source,
                        f" ({nic.note})" if nic.note else "")
            if not self._shape_given and not self._warned:
                self._warned = True
                G, S, _ = self._network.dims
                links = dict(self._network.options)["global_links"]
                logger.warning("cxi: the network's shape is not in the NIC address; assumed preset %s: %s of "
                               "%s, %s per pair of groups (say it in the spec, e.g. "
                               "MPITASKMAP_PROVIDER=cxi:preset=perlmutter or cxi:n_groups=,switches=,global_links=)",
                               self.preset, counted(G, "group"), counted(S, "switch", "switches"),
                               counted(links, "global link"))
        return Location((nic.group, nic.switch, nic.port), f"{host}/{nic.domain}")

    def network(self, *, size: int | None = None) -> NetworkInfo:
        """Return the ``"dragonfly"`` network of the preset and options (module notes)."""
        return self._network


def _close(fid_ptr) -> None:
    """fi_close through the object's function table (ignored if the table has no close)."""
    fid = ctypes.cast(fid_ptr, ctypes.POINTER(_Fid)).contents
    if fid.ops and fid.ops.contents.size >= _CLOSE_END and fid.ops.contents.close:
        fid.ops.contents.close(fid_ptr)


def _errno_text(rc: int) -> str:
    return os.strerror(-rc) if rc < 0 else "not a negative errno"
