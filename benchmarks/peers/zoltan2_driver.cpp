// zoltan2_map: a small command-line driver around Zoltan2's geometric task mapper
// (Trilinos 13.2 as packaged by Debian 12), written for mpitaskmap's benchmarks.
// It is a peer for comparison only; mpitaskmap itself never needs it.
//
// Build: bash benchmarks/peers/install_peers.sh   (-> benchmarks/peers/build/zoltan2_map)
//
// Usage:
//   zoltan2_map --procs P.bin --tasks T.bin --graph G.bin --out OUT.txt
//               [--extent X,Y,Z]      machine extents: turns on Zoltan2's torus shift
//                                     ("largest empty gap becomes the wrap-around")
//               [--rpn N]             ranks per node (default 1)
//               [--prime-first]       divide by the largest prime factor first
//               [--depth D]           recursion depth (default -1 = automatic)
//               [--parts a,b,c]       explicit per-level part counts (product must equal
//                                     min(n_procs, n_tasks)); sets depth = count
//               [--verbose]           print the configuration (and MPI size) to stderr
//               [--each-rank]         under `mpirun -np k`: no cost reduction; every rank
//                                     keeps its own rotation candidate and writes it to
//                                     OUT.txt.<rank> (rank r = Zoltan2 rotation r mod G)
//   zoltan2_map --selftest            map a 4x4x4 stencil onto a 4x4x4 torus, check it
//
// Runs as one process (plain `./zoltan2_map ...`, MPI singleton). It also works under
// `mpirun -np k`: every rank reads the inputs and computes one candidate mapping
// (rotation), Zoltan2 keeps the cheapest one, and rank 0 writes the output.
// With one process Zoltan2 tries only its first candidate (longest dimension on both sides).
//
// File formats (binary = native little-endian, int = int32, double = float64):
//   coordinates (P.bin: processors, T.bin: tasks), the layout of Zoltan2's own test drivers:
//       int n, int dim, double c[dim][n]        (dimension-major: all x, then all y, ...)
//   task graph (G.bin), directed CSR (list both directions of a symmetric edge):
//       int nv, int ne, int xadj[nv+1], int adj[ne], double w[ne]
//     nv must equal the number of tasks; ne may be 0 (then Zoltan2 computes no cost).
//   output (OUT.txt), text:
//       line 1: "<n_tasks> <seconds>"  seconds = wall-clock time of the
//               coordinateTaskMapperInterface call alone (no file I/O), max over ranks
//       then n_tasks lines: the processor index of task i (0-based, rows of P.bin)
// Exit status 0 on success; errors go to stderr with status 1 (2 for usage errors).

#include <Tpetra_Core.hpp>
#include <Teuchos_DefaultComm.hpp>
#include <Zoltan2_TaskMapping.hpp>

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using part_t = int;

struct Coords {
  int n = 0, dim = 0;
  std::vector<double> data;      // dim-major, data[d * n + i]
  std::vector<double *> rows;    // rows[d] -> &data[d * n]
  void finish() {
    rows.resize(dim);
    for (int d = 0; d < dim; ++d) rows[d] = data.data() + static_cast<size_t>(d) * n;
  }
};

struct Graph {
  int nv = 0, ne = 0;
  std::vector<part_t> xadj, adj;
  std::vector<double> w;
};

void fail(const std::string &msg) { throw std::runtime_error(msg); }

template <typename T>
void read_exact(std::ifstream &f, T *dst, size_t count, const std::string &what) {
  if (count == 0) return;
  f.read(reinterpret_cast<char *>(dst), static_cast<std::streamsize>(count * sizeof(T)));
  if (!f || static_cast<size_t>(f.gcount()) != count * sizeof(T))
    fail("short read in " + what);
}

Coords read_coords(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open coordinate file " + path);
  Coords c;
  read_exact(f, &c.n, 1, path);
  read_exact(f, &c.dim, 1, path);
  // 64: room for Zoltan2's own dragonfly transform (1 + rows + columns dimensions, 23 on an Aries group)
  if (c.n <= 0 || c.dim <= 0 || c.dim > 64)
    fail("bad header in " + path + " (n=" + std::to_string(c.n) + ", dim=" + std::to_string(c.dim) + ")");
  c.data.resize(static_cast<size_t>(c.n) * c.dim);
  read_exact(f, c.data.data(), c.data.size(), path);
  c.finish();
  return c;
}

Graph read_graph(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot open graph file " + path);
  Graph g;
  read_exact(f, &g.nv, 1, path);
  read_exact(f, &g.ne, 1, path);
  if (g.nv <= 0 || g.ne < 0) fail("bad header in " + path);
  g.xadj.resize(g.nv + 1);
  g.adj.resize(g.ne);
  g.w.resize(g.ne);
  read_exact(f, g.xadj.data(), g.xadj.size(), path);
  read_exact(f, g.adj.data(), g.adj.size(), path);
  read_exact(f, g.w.data(), g.w.size(), path);
  if (g.xadj[0] != 0 || g.xadj[g.nv] != g.ne) fail("inconsistent xadj in " + path);
  for (int i = 0; i < g.nv; ++i)
    if (g.xadj[i + 1] < g.xadj[i]) fail("xadj not monotone in " + path);
  for (int e = 0; e < g.ne; ++e)
    if (g.adj[e] < 0 || g.adj[e] >= g.nv) fail("adjacency index out of range in " + path);
  return g;
}

std::vector<int> parse_int_list(const std::string &s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    if (tok.empty()) continue;
    char *end = nullptr;
    long v = std::strtol(tok.c_str(), &end, 10);
    if (*end != '\0') fail("not an integer list: " + s);
    out.push_back(static_cast<int>(v));
  }
  return out;
}

struct Options {
  std::string procs, tasks, graph, out;
  std::vector<int> extent, parts;
  int rpn = 1, depth = -1;
  bool prime_first = false, selftest = false, verbose = false, each_rank = false;
};

// Runs the mapper; returns task_to_proc and sets seconds (time of the Zoltan2 call only).
std::vector<int> run_mapping(const Teuchos::RCP<const Teuchos::Comm<int>> &comm,
                             Coords &procs, Coords &tasks, Graph &g, const Options &o,
                             double &seconds) {
  const int nprocs = procs.n, ntasks = tasks.n;
  if (g.nv != ntasks)
    fail("graph has " + std::to_string(g.nv) + " vertices but there are " +
         std::to_string(ntasks) + " tasks");
  if (!o.extent.empty() && static_cast<int>(o.extent.size()) != procs.dim)
    fail("--extent needs one value per processor coordinate dimension");
  if (!o.extent.empty()) {
    // Zoltan2's shift histograms integer coordinates in [0, extent): check that up front.
    for (int d = 0; d < procs.dim; ++d)
      for (int i = 0; i < nprocs; ++i) {
        double v = procs.rows[d][i];
        if (v != static_cast<double>(static_cast<long>(v)) || v < 0 || v >= o.extent[d])
          fail("with --extent, processor coordinates must be integers in [0, extent)");
      }
  }
  if (o.depth == 0 && o.parts.empty())
    fail("depth 0 without --parts crashes Zoltan2 (SIGFPE); use -1 for automatic");

  int depth = o.depth;
  Kokkos::View<part_t *, Kokkos::HostSpace> part_no_array;
  if (!o.parts.empty()) {
    long prod = 1;
    for (int p : o.parts) prod *= p;
    if (prod != std::min(nprocs, ntasks))
      fail("product of --parts must equal min(n_procs, n_tasks)");
    part_no_array = Kokkos::View<part_t *, Kokkos::HostSpace>("part_no_array", o.parts.size());
    for (size_t i = 0; i < o.parts.size(); ++i) part_no_array(i) = o.parts[i];
    depth = static_cast<int>(o.parts.size());
  }

  std::vector<part_t> p2t_xadj(nprocs + 1, 0), p2t_adj(ntasks, -1);
  const part_t *extent_ptr = o.extent.empty() ? nullptr : o.extent.data();
  // The interface takes non-const pointers but does not modify them.
  part_t *xadj = g.xadj.data();
  part_t *adj = g.ne ? g.adj.data() : nullptr;
  double *w = g.ne ? g.w.data() : nullptr;
  // --each-rank: an edgeless graph makes Zoltan2 skip the cost and the best-mapping
  // reduction, so every rank keeps the candidate of its own rotation.
  std::vector<part_t> empty_xadj(ntasks + 1, 0);
  if (o.each_rank) { xadj = empty_xadj.data(); adj = nullptr; w = nullptr; }

  if (o.verbose && comm->getRank() == 0)
    std::fprintf(stderr,
                 "zoltan2_map: ranks=%d procs=%d (dim %d) tasks=%d (dim %d) edges=%d depth=%d "
                 "parts=%zu rpn=%d prime_first=%d shift=%s\n",
                 comm->getSize(), nprocs, procs.dim, ntasks, tasks.dim, g.ne, depth,
                 o.parts.size(), o.rpn, int(o.prime_first), o.extent.empty() ? "no" : "yes");
  comm->barrier();
  auto t0 = std::chrono::steady_clock::now();
  Zoltan2::coordinateTaskMapperInterface<part_t, double, double>(
      comm, procs.dim, nprocs, procs.rows.data(), tasks.dim, ntasks, tasks.rows.data(),
      xadj, adj, w, p2t_xadj.data(), p2t_adj.data(), depth, part_no_array, extent_ptr,
      o.rpn, o.prime_first);
  auto t1 = std::chrono::steady_clock::now();
  double local = std::chrono::duration<double>(t1 - t0).count();
  Teuchos::reduceAll<int, double>(*comm, Teuchos::REDUCE_MAX, 1, &local, &seconds);

  std::vector<int> task_to_proc(ntasks, -1);
  for (int p = 0; p < nprocs; ++p)
    for (int k = p2t_xadj[p]; k < p2t_xadj[p + 1]; ++k) {
      int t = p2t_adj[k];
      if (t < 0 || t >= ntasks) fail("Zoltan2 returned an out-of-range task id");
      if (task_to_proc[t] != -1) fail("Zoltan2 assigned a task twice");
      task_to_proc[t] = p;
    }
  for (int t = 0; t < ntasks; ++t)
    if (task_to_proc[t] < 0) fail("Zoltan2 left task " + std::to_string(t) + " unassigned");
  return task_to_proc;
}

int selftest(const Teuchos::RCP<const Teuchos::Comm<int>> &comm) {
  // 4x4x4 torus of processors and a 4x4x4 7-point stencil (non-periodic), id = x+4(y+4z).
  const int L = 4, n = L * L * L;
  Coords procs, tasks;
  procs.n = tasks.n = n;
  procs.dim = tasks.dim = 3;
  procs.data.resize(3 * n);
  for (int z = 0; z < L; ++z)
    for (int y = 0; y < L; ++y)
      for (int x = 0; x < L; ++x) {
        int id = x + L * (y + L * z);
        procs.data[id] = x;
        procs.data[n + id] = y;
        procs.data[2 * n + id] = z;
      }
  tasks.data = procs.data;
  procs.finish();
  tasks.finish();
  Graph g;
  g.nv = n;
  g.xadj.push_back(0);
  for (int id = 0; id < n; ++id) {
    int c[3] = {id % L, (id / L) % L, id / (L * L)};
    for (int d = 0; d < 3; ++d)
      for (int s = -1; s <= 1; s += 2) {
        int q[3] = {c[0], c[1], c[2]};
        q[d] += s;
        if (q[d] < 0 || q[d] >= L) continue;
        g.adj.push_back(q[0] + L * (q[1] + L * q[2]));
        g.w.push_back(1.0);
      }
    g.xadj.push_back(static_cast<int>(g.adj.size()));
  }
  g.ne = static_cast<int>(g.adj.size());
  Options o;
  o.extent = {L, L, L};
  double secs = 0;
  std::vector<int> t2p = run_mapping(comm, procs, tasks, g, o, secs);
  std::vector<int> seen(n, 0);
  for (int p : t2p) seen[p]++;
  for (int p = 0; p < n; ++p)
    if (seen[p] != 1) fail("selftest: mapping is not a permutation");
  if (comm->getRank() == 0)
    std::printf("selftest OK: %d tasks mapped one-to-one in %.6f s\n", n, secs);
  return 0;
}

void usage() {
  std::fprintf(stderr,
               "usage: zoltan2_map --procs P.bin --tasks T.bin --graph G.bin --out OUT.txt\n"
               "                   [--extent X,Y,Z] [--rpn N] [--prime-first] [--depth D]"
               " [--parts a,b,c] [--each-rank]\n"
               "       zoltan2_map --selftest\n"
               "(file formats are documented at the top of zoltan2_driver.cpp)\n");
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (a == "--procs") o.procs = next();
      else if (a == "--tasks") o.tasks = next();
      else if (a == "--graph") o.graph = next();
      else if (a == "--out") o.out = next();
      else if (a == "--extent") o.extent = parse_int_list(next());
      else if (a == "--parts") o.parts = parse_int_list(next());
      else if (a == "--rpn") o.rpn = std::stoi(next());
      else if (a == "--depth") o.depth = std::stoi(next());
      else if (a == "--prime-first") o.prime_first = true;
      else if (a == "--selftest") o.selftest = true;
      else if (a == "--verbose") o.verbose = true;
      else if (a == "--each-rank") o.each_rank = true;
      else if (a == "-h" || a == "--help") { usage(); return 0; }
      else { std::fprintf(stderr, "unknown argument: %s\n", a.c_str()); usage(); return 2; }
    } catch (const std::exception &e) {
      std::fprintf(stderr, "bad value for %s: %s\n", a.c_str(), e.what());
      return 2;
    }
  }
  if (!o.selftest && (o.procs.empty() || o.tasks.empty() || o.graph.empty() || o.out.empty())) {
    usage();
    return 2;
  }
  if (o.rpn < 1) { std::fprintf(stderr, "--rpn must be >= 1\n"); return 2; }

  int status = 0;
  {
    Tpetra::ScopeGuard guard(&argc, &argv);  // MPI_Init + Kokkos::initialize
    auto comm = Tpetra::getDefaultComm();
    try {
      if (o.selftest) {
        status = selftest(comm);
      } else {
        Coords procs = read_coords(o.procs);
        Coords tasks = read_coords(o.tasks);
        Graph g = read_graph(o.graph);
        double secs = 0;
        std::vector<int> t2p = run_mapping(comm, procs, tasks, g, o, secs);
        if (comm->getRank() == 0 || o.each_rank) {
          std::ofstream out(o.each_rank ? o.out + "." + std::to_string(comm->getRank()) : o.out);
          if (!out) fail("cannot open output file " + o.out);
          out << t2p.size() << ' ';
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.9g", secs);
          out << buf << '\n';
          for (int p : t2p) out << p << '\n';
          if (!out) fail("error writing " + o.out);
        }
      }
    } catch (const std::exception &e) {
      std::fprintf(stderr, "zoltan2_map: error: %s\n", e.what());
      status = 1;
    }
    if (comm->getSize() > 1) {
      int s = status, smax = 0;
      MPI_Allreduce(&s, &smax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      status = smax;
    }
  }
  return status;
}
