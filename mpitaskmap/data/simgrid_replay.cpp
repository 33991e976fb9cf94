/* Replay one exchange step of a task graph on a SimGrid platform (S4U, SimGrid >= 3.30).
 *
 * Part of mpitaskmap (mpitaskmap.sim.simgrid_replay builds it on first use against the system's
 * libsimgrid and drives it through a subprocess).
 *
 * usage: simgrid_replay PLATFORM.xml MESSAGES.txt STEPS [--cfg=... SimGrid options]
 *   MESSAGES.txt: one message per line, "SOURCE_HOST DESTINATION_HOST BYTES".
 *   Every step starts every message at once (Comm::sendto_async, host to host, no
 *   mailboxes) and ends when the last one has arrived; steps run one after the other.
 * output (stdout):
 *   step K SECONDS          simulated duration of step K
 *   total SECONDS           simulated time of all steps
 *   link LOAD BW NAME       every link with traffic: cumulated load in bytes (link-load
 *                           plugin, sg_link_get_cum_load), bandwidth in bytes/s, and its
 *                           name, last: the rest of the line (a name may hold spaces)
 */
#include <simgrid/plugins/load.h>
#include <simgrid/s4u.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

struct Message {
  sg4::Host* src;
  sg4::Host* dst;
  uint64_t bytes;
};

static std::vector<Message> messages;
static long steps = 1;

static void driver()
{
  sg4::Engine* engine = sg4::Engine::get_instance();
  std::vector<sg4::Link*> links = engine->get_all_links();
  for (sg4::Link* link : links) // tracking must start inside the simulation
    sg_link_load_track(link);
  for (long s = 0; s < steps; s++) {
    double start = sg4::Engine::get_clock();
    std::vector<sg4::CommPtr> comms;
    comms.reserve(messages.size());
    for (const Message& m : messages)
      comms.push_back(sg4::Comm::sendto_async(m.src, m.dst, m.bytes));
    sg4::Comm::wait_all(comms);
    std::printf("step %ld %.17g\n", s, sg4::Engine::get_clock() - start);
  }
  std::printf("total %.17g\n", sg4::Engine::get_clock());
  for (sg4::Link* link : links) { // read the loads before the simulation ends (tracking stops then)
    double load = sg_link_get_cum_load(link);
    if (load > 0)
      std::printf("link %.17g %.17g %s\n", load, link->get_bandwidth(), link->get_cname());
  }
  std::fflush(stdout);
}

int main(int argc, char** argv)
{
  sg4::Engine engine(&argc, argv);
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s PLATFORM.xml MESSAGES.txt STEPS [--cfg=...]\n", argv[0]);
    return 2;
  }
  steps = std::atol(argv[3]);
  if (steps < 1) {
    std::fprintf(stderr, "STEPS: expected a positive count; got %s\n", argv[3]);
    return 2;
  }
  sg_link_load_plugin_init();
  engine.load_platform(argv[1]);
  std::ifstream in(argv[2]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[2]);
    return 2;
  }
  std::string src;
  std::string dst;
  double bytes;
  long line = 0;
  while (in >> src >> dst >> bytes) {
    line++;
    sg4::Host* s = sg4::Host::by_name_or_null(src);
    sg4::Host* d = sg4::Host::by_name_or_null(dst);
    if (s == nullptr || d == nullptr) {
      std::fprintf(stderr, "%s:%ld: unknown host %s\n", argv[2], line, s == nullptr ? src.c_str() : dst.c_str());
      return 2;
    }
    messages.push_back({s, d, static_cast<uint64_t>(bytes)});
  }
  if (messages.empty()) {
    std::fprintf(stderr, "%s: no messages\n", argv[2]);
    return 2;
  }
  sg4::Actor::create("driver", messages.front().src, driver);
  engine.run();
  return 0;
}
