// A C++ service beside Leaf's snowflake servers on one ZooKeeper ensemble: its worker id from
// Leaf's /snowflake/<name>/forever/<ip:port>-<seq> node (Leaf's start-up clock check
// included), and order numbers from a segment counter in flakeid's own nodes. Without
// FLAKEID_ZOOKEEPER_HOSTS it prints how to run it.
//
//   FLAKEID_ZOOKEEPER_HOSTS=zk1:2181,zk2:2181,zk3:2181 ./example_zookeeper_fleet 10.0.0.7 8080
#include <cstdlib>
#include <flakeid/adapters/zookeeper.hpp>
#include <flakeid/flakeid.hpp>
#include <iostream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  const char* hosts = std::getenv("FLAKEID_ZOOKEEPER_HOSTS");
  if (hosts == nullptr || *hosts == '\0' || argc != 3) {
    std::cout << "set FLAKEID_ZOOKEEPER_HOSTS=host:2181[,host:2181...] and pass this service's "
                 "ip and port, as Leaf names its nodes\n";
    return 0;
  }
  try {
    flakeid::leaf_worker_options leaf;
    leaf.ip = argv[1];
    leaf.port = argv[2];
    flakeid::zookeeper_leaf_worker worker{flakeid::zookeeper_address{hosts}, leaf};
    flakeid::classic_snowflake<> ids{worker};  // Leaf's layout: 10 bits of worker id
    std::cout << "worker " << ids.node().worker << " (datacenter " << ids.node().datacenter
              << ") from " << ids.node_source() << '\n';
    for (int i = 0; i < 3; ++i) std::cout << "id " << ids.next_id() << '\n';

    const flakeid::zookeeper_store store{flakeid::zookeeper_address{hosts},
                                         {.name_space = "example"}};
    flakeid::segment_generator orders{store.distributor("order"), 100};
    std::cout << "order " << orders.next_id() << '\n';
  } catch (const std::exception& e) {  // typed errors: flakeid::clock_backwards_error, ...
    std::cerr << e.what() << '\n';
    return 1;
  }
  return 0;
}
