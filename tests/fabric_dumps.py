"""Fabric dumps for the InfiniBand readers' tests: ``ibnetdiscover``'s topology file and ``iblinkinfo``'s output of
one two-level fabric (tests/machines/test_ibnetdiscover.py, test_iblinkinfo.py)."""

from __future__ import annotations


def ibnetdiscover_dump(leaves=2, hosts=4, spines=2, cables=1, speed="4xEDR", up_speed=None, skip_up=(),
                      reverse=False):
    """A fabric: ``leaves`` leaves of ``hosts`` hosts, each cabled ``cables`` times to every spine (``reverse``: a
    leaf's hosts on its ports in reverse name order)."""
    port_of_host = (lambda p: hosts - p) if reverse else (lambda p: p + 1)  # noqa: E731
    up_speed = up_speed or speed
    out = ["# ibnetdiscover -s", "vendid=0x2c9", "devid=0xc738"]
    port_of = {}
    for k in range(leaves):
        out.append(f'Switch\t36 "S-{0xa0 + k:x}"\t\t# "MF0;leaf{k}:MSB7700/U1" enhanced port 0 lid {k + 1} lmc 0')
        for p in range(hosts):
            v = k * hosts + p
            out.append(f'[{port_of_host(p)}]\t"H-{0xb00 + v:x}"[1]({0xc00 + v:x})\t\t# "n{v} mlx5_0" lid {50 + v} '
                       f'{speed}')
        port = hosts
        for j in range(spines):
            for c in range(cables):
                port += 1
                if (k, j) in skip_up:
                    continue
                port_of[k, j, c] = port
                out.append(f'[{port}]\t"S-{0xe0 + j:x}"[{k * cables + c + 1}]\t\t# "spine{j}" lid {20 + j} {up_speed}')
    for j in range(spines):
        out.append(f'Switch\t36 "S-{0xe0 + j:x}"\t\t# "spine{j}" enhanced port 0 lid {20 + j} lmc 0')
        for k in range(leaves):
            for c in range(cables):
                if (k, j, c) in port_of:
                    out.append(f'[{k * cables + c + 1}]\t"S-{0xa0 + k:x}"[{port_of[k, j, c]}]\t\t# "leaf{k}" lid {k + 1} '
                               f'{up_speed}')
    for v in range(leaves * hosts):
        out.append(f'Ca\t1 "H-{0xb00 + v:x}"\t\t# "n{v} mlx5_0"')
        out.append(f'[1]({0xc00 + v:x})\t"S-{0xa0 + v // hosts:x}"[{port_of_host(v % hosts)}]\t\t# lid {50 + v} lmc 0 '
                   f'"leaf{v // hosts}" lid {v // hosts + 1} {speed}')
    return "\n".join(out) + "\n"


#: iblinkinfo's width and lane speed of every speed ibnetdiscover prints here.
SIGNAL = {"4xEDR": ("4X", "25.78125 Gbps"), "4xFDR": ("4X", "14.0625 Gbps"), "4xHDR": ("4X", "53.125 Gbps"),
          "4xFDR10": ("4X", "10.0 Gbps (FDR10)"), "2xHDR": ("2X", "53.125 Gbps")}


def iblinkinfo_output(leaves=2, hosts=4, spines=2, speed="4xEDR", reverse=False, form="default", down=True):
    """iblinkinfo's output for the fabric ibnetdiscover_dump describes (same names, LIDs and ports): leaf ``k``
    LID ``k + 1``, spine ``j`` LID ``20 + j``, host ``v`` LID ``50 + v`` on leaf port ``p + 1`` (``reverse``: its
    leaf's ports in reverse name order); every leaf port ``hosts + j + 1`` to spine ``j``'s port ``k + 1``."""
    width, rate = SIGNAL[speed]
    link = f"==( {width:>3} {rate:>18} Active/  LinkUp)==>"
    port_of_host = (lambda p: hosts - p) if reverse else (lambda p: p + 1)  # noqa: E731
    lines = []

    def port_line(guid, desc, lid, port, rlid, rport, rdesc, rguid, ca=False):
        if form == "line":
            return (f'0x{guid:016x} "{desc:>30}" {lid:6d} {port:4d}[  ] {link}  0x{rguid:016x} {rlid:6d} '
                    f'{rport:4d}[  ] "{rdesc}" ( )')
        prefix = f"0x{guid:016x} " if ca else ""  # a CA's port line starts with the port's GUID
        return f'      {prefix}{lid:6d} {port:4d}[  ] {link}  {rlid:6d} {rport:4d}[  ] "{rdesc}" ( )'

    for k in range(leaves):
        desc = f"MF0;leaf{k}:MSB7700/U1"
        if form != "line":
            lines.append(f"Switch: 0x{0xa0 + k:016x} {desc}:")
        for p in range(hosts):
            v = k * hosts + p
            lines.append(port_line(0xa0 + k, desc, k + 1, port_of_host(p), 50 + v, 1, f"n{v} mlx5_0", 0xc00 + v))
        for j in range(spines):
            lines.append(port_line(0xa0 + k, desc, k + 1, hosts + j + 1, 20 + j, k + 1, f"spine{j}", 0xe0 + j))
        if down and form != "line":
            lines.append(f"      {k + 1:6d} {hosts + spines + 1:4d}[  ] ==(              Down/ Polling)==>"
                         '             [  ] "" ( )')
    for j in range(spines):
        if form != "line":
            lines.append(f"Switch: 0x{0xe0 + j:016x} spine{j}:")
        for k in range(leaves):
            lines.append(port_line(0xe0 + j, f"spine{j}", 20 + j, k + 1, k + 1, hosts + j + 1,
                                   f"MF0;leaf{k}:MSB7700/U1", 0xa0 + k))
    if form in ("default", "line"):
        for k in range(leaves):
            for p in range(hosts):
                v = k * hosts + p
                if form != "line":
                    lines.append(f"CA: n{v} mlx5_0:")
                lines.append(port_line(0xc00 + v, f"n{v} mlx5_0", 50 + v, 1, k + 1, port_of_host(p),
                                       f"MF0;leaf{k}:MSB7700/U1", 0xa0 + k, ca=True))
    return "\n".join(lines) + "\n"
