/* Fake libfabric with a CXI provider, for tests/providers/test_cxi.py (built at test time).
 *
 * Exports what mpitaskmap/providers/cxi.py calls, with libfabric 1.x's signatures and struct
 * layouts (include/rdma/fabric.h, include/rdma/fi_domain.h, prov/cxi/include/fi_cxi_ext.h
 * of ofiwg/libfabric; only the leading fields the provider reads are declared):
 *   uint32_t fi_version(void);
 *   int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
 *                  const struct fi_info *hints, struct fi_info **info);
 *   void fi_freeinfo(struct fi_info *info);
 *   int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
 * and, through the function tables as the static inline fi_domain / fi_open_ops / fi_close
 * of the headers reach them: fabric->ops->domain, fid->ops->ops_open ("dom_ops_v1" ..
 * "dom_ops_v6" give struct fi_cxi_dom_ops {cntr_read, topology}), fid->ops->close.
 * The topology call decodes the domain's NIC address as the CXI provider's struct
 * cxip_topo_addr does: port bits 0-5, switch bits 6-10, group bits 11-19; the fi_info's
 * src_addr is a struct cxip_addr {pid:9, nic:20, pad:3; uint16_t vni} (address format
 * FI_ADDR_CXI = 15), as cxip_info_alloc fills it.
 *
 * Read from the environment at every call (so each MPI rank of a test can have its own):
 *   FAKE_CXI_NICS       "cxi0=0x2a1c5,cxi1=0x2a1c6": the CXI NICs and their NIC addresses,
 *                       each listed twice (two fi_info per NIC, as the real provider lists
 *                       several modes), after a "tcp" entry; unset or empty: no CXI NIC.
 *   FAKE_CXI_GETINFO_RC fi_getinfo returns this (e.g. -61, -FI_ENODATA) and no list.
 *   FAKE_CXI_TOPOLOGY   unset: the call decodes the address; "g,s,p": it answers these;
 *                       "no_ops": fi_open_ops fails with -FI_EINVAL (22) (an older provider);
 *                       "null": the extension has no topology slot; "no_domain": fi_domain
 *                       fails with -FI_EINVAL; "fail": the call returns -FI_EINVAL.
 *   FAKE_CXI_NO_ADDR    "1": the fi_info carry no source address.
 * fake_cxi_live_objects() counts the fi_info lists, fabrics and domains not yet freed or
 * closed (the tests check the provider leaves none behind).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FI_ADDR_CXI 15
#define FI_CLASS_FABRIC 1
#define FI_CLASS_DOMAIN 2

struct fid;
struct fid_fabric;
struct fid_domain;

struct fi_fabric_attr {
    struct fid_fabric *fabric;
    char *name;
    char *prov_name;
    uint32_t prov_version;
    uint32_t api_version;
};

struct fi_domain_attr {
    struct fid_domain *domain;
    char *name;
    int threading; /* ... the rest of the real struct is not read */
};

struct fi_info {
    struct fi_info *next;
    uint64_t caps;
    uint64_t mode;
    uint32_t addr_format;
    size_t src_addrlen;
    size_t dest_addrlen;
    void *src_addr;
    void *dest_addr;
    struct fid *handle;
    void *tx_attr;
    void *rx_attr;
    void *ep_attr;
    struct fi_domain_attr *domain_attr;
    struct fi_fabric_attr *fabric_attr;
    void *nic;
};

struct fi_ops {
    size_t size;
    int (*close)(struct fid *fid);
    int (*bind)(struct fid *fid, struct fid *bfid, uint64_t flags);
    int (*control)(struct fid *fid, int command, void *arg);
    int (*ops_open)(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context);
    int (*tostr)(const struct fid *fid, char *buf, size_t len);
    int (*ops_set)(struct fid *fid, const char *name, uint64_t flags, void *ops, void *context);
};

struct fid {
    size_t fclass;
    void *context;
    struct fi_ops *ops;
};

struct fi_ops_fabric {
    size_t size;
    int (*domain)(struct fid_fabric *fabric, struct fi_info *info, struct fid_domain **dom, void *context);
    void *passive_ep, *eq_open, *wait_open, *trywait, *domain2;
};

struct fid_fabric {
    struct fid fid;
    struct fi_ops_fabric *ops;
    uint32_t api_version;
};

struct fid_domain {
    struct fid fid;
    void *ops;
    void *mr;
};

struct cxip_addr {
    uint32_t pid : 9;
    uint32_t nic : 20;
    uint32_t pad : 3;
    uint16_t vni;
};

struct cxip_topo_addr {
    union {
        uint32_t addr;
        struct {
            uint32_t port_num : 6;
            uint32_t switch_num : 5;
            uint32_t group_num : 9;
        } dragonfly;
    };
};

struct fi_cxi_dom_ops {
    int (*cntr_read)(struct fid *fid, unsigned int cntr, uint64_t *value, void *ts);
    int (*topology)(struct fid *fid, unsigned int *group_id, unsigned int *switch_id, unsigned int *port_id);
};

struct fake_domain {
    struct fid_domain domain;
    uint32_t nic_addr;
};

static int live = 0;

int fake_cxi_live_objects(void) { return live; }

uint32_t fi_version(void) { return (1u << 16) | 22u; }

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return (v && v[0]) ? v : NULL;
}

static struct fi_info *new_info(const char *prov, const char *domain, long nic_addr)
{
    struct fi_info *fi = calloc(1, sizeof(*fi));
    fi->fabric_attr = calloc(1, sizeof(*fi->fabric_attr));
    fi->domain_attr = calloc(1, sizeof(*fi->domain_attr));
    fi->fabric_attr->prov_name = strdup(prov);
    fi->fabric_attr->name = strdup(strcmp(prov, "cxi") ? "127.0.0.0/8" : "cxi");
    fi->domain_attr->name = strdup(domain);
    if (nic_addr >= 0 && !env("FAKE_CXI_NO_ADDR")) {
        struct cxip_addr *addr = calloc(1, sizeof(*addr));
        addr->nic = (uint32_t)nic_addr;
        addr->pid = 511; /* C_PID_ANY */
        fi->addr_format = FI_ADDR_CXI;
        fi->src_addr = addr;
        fi->src_addrlen = sizeof(*addr);
    }
    return fi;
}

void fi_freeinfo(struct fi_info *info)
{
    if (info)
        live--;
    while (info) {
        struct fi_info *next = info->next;
        free(info->fabric_attr->prov_name);
        free(info->fabric_attr->name);
        free(info->fabric_attr);
        free(info->domain_attr->name);
        free(info->domain_attr);
        free(info->src_addr);
        free(info);
        info = next;
    }
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    const char *rc = env("FAKE_CXI_GETINFO_RC");
    if (rc)
        return atoi(rc);
    if (version < ((1u << 16) | 5u) || node || service || flags || hints)
        return -EINVAL; /* the provider passes its version and nothing else */
    struct fi_info *head = new_info("tcp", "lo", -1), *tail = head;
    const char *nics = env("FAKE_CXI_NICS");
    if (nics) {
        char *copy = strdup(nics), *save = NULL;
        for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(item, '=');
            if (!eq)
                continue;
            *eq = '\0';
            long addr = strtol(eq + 1, NULL, 0);
            for (int k = 0; k < 2; k++) {
                tail->next = new_info("cxi", item, addr);
                tail = tail->next;
            }
        }
        free(copy);
    }
    tail->next = new_info("shm", "shm", -1);
    live++;
    *info = head;
    return 0;
}

static int close_fabric(struct fid *fid)
{
    live--;
    free(fid);
    return 0;
}

static int close_domain(struct fid *fid)
{
    live--;
    free(fid);
    return 0;
}

static int topology(struct fid *fid, unsigned int *group_id, unsigned int *switch_id, unsigned int *port_id)
{
    const char *mode = env("FAKE_CXI_TOPOLOGY");
    unsigned int g, s, p;
    if (fid->fclass != FI_CLASS_DOMAIN)
        return -EINVAL;
    if (mode && !strcmp(mode, "fail"))
        return -EINVAL;
    if (mode && sscanf(mode, "%u,%u,%u", &g, &s, &p) == 3) {
        *group_id = g;
        *switch_id = s;
        *port_id = p;
        return 0;
    }
    struct cxip_topo_addr topo;
    topo.addr = ((struct fake_domain *)fid)->nic_addr;
    *group_id = topo.dragonfly.group_num;
    *switch_id = topo.dragonfly.switch_num;
    *port_id = topo.dragonfly.port_num;
    return 0;
}

static struct fi_cxi_dom_ops dom_ops = {NULL, topology};
static struct fi_cxi_dom_ops dom_ops_without_topology = {NULL, NULL};

static int ops_open(struct fid *fid, const char *name, uint64_t flags, void **ops, void *context)
{
    const char *mode = env("FAKE_CXI_TOPOLOGY");
    if (mode && !strcmp(mode, "no_ops"))
        return -EINVAL;
    if (strncmp(name, "dom_ops_v", 9) || name[9] < '1' || name[9] > '6' || name[10])
        return -EINVAL;
    *ops = (mode && !strcmp(mode, "null")) ? &dom_ops_without_topology : &dom_ops;
    return 0;
}

static struct fi_ops domain_fi_ops = {sizeof(struct fi_ops), close_domain, NULL, NULL, ops_open, NULL, NULL};

static int open_domain(struct fid_fabric *fabric, struct fi_info *info, struct fid_domain **dom, void *context)
{
    const char *mode = env("FAKE_CXI_TOPOLOGY");
    if ((mode && !strcmp(mode, "no_domain")) || !info || !info->src_addr)
        return -EINVAL;
    struct fake_domain *d = calloc(1, sizeof(*d));
    d->domain.fid.fclass = FI_CLASS_DOMAIN;
    d->domain.fid.context = context;
    d->domain.fid.ops = &domain_fi_ops;
    d->nic_addr = ((struct cxip_addr *)info->src_addr)->nic;
    live++;
    *dom = &d->domain;
    return 0;
}

static struct fi_ops fabric_fi_ops = {sizeof(struct fi_ops), close_fabric, NULL, NULL, NULL, NULL, NULL};
static struct fi_ops_fabric fabric_ops = {sizeof(struct fi_ops_fabric), open_domain, NULL, NULL, NULL, NULL, NULL};

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (!attr || !attr->prov_name || strcmp(attr->prov_name, "cxi"))
        return -ENODATA;
    struct fid_fabric *f = calloc(1, sizeof(*f));
    f->fid.fclass = FI_CLASS_FABRIC;
    f->fid.context = context;
    f->fid.ops = &fabric_fi_ops;
    f->ops = &fabric_ops;
    f->api_version = fi_version();
    live++;
    *fabric = f;
    return 0;
}
