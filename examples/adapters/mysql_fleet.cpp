// A C++ service joining a fleet that keeps its IDs in MySQL or MariaDB: a worker id leased
// from the database, order numbers from Leaf's leaf_alloc row "order" (which a Leaf server may
// share), and invoice numbers from flakeid's own counter table. Without FLAKEID_MYSQL_URL it
// prints how to run it.
//
//   FLAKEID_MYSQL_URL=mysql://app:s3cret@db.internal:3306/shop ./example_mysql_fleet
#include <cstdlib>
#include <flakeid/adapters/mysql.hpp>
#include <flakeid/flakeid.hpp>
#include <iostream>
#include <stdexcept>

int main() {
  const char* url = std::getenv("FLAKEID_MYSQL_URL");
  if (url == nullptr || *url == '\0') {
    std::cout << "set FLAKEID_MYSQL_URL=mysql://user:password@host:3306/database to lease a "
                 "worker id and take segments there\n";
    return 0;
  }
  try {
    const flakeid::mysql_store store{url, {.name_space = "example"}};
    std::cout << "store " << store.address().where() << '\n';  // never the password

    flakeid::lease_options lo;
    lo.ttl = std::chrono::seconds{6};  // renewed every 2 s in the background
    auto lease = store.lease(lo);
    flakeid::classic_snowflake<> ids{lease};
    std::cout << "worker " << ids.node().worker << " from " << ids.node_source() << '\n';
    for (int i = 0; i < 3; ++i) std::cout << "id " << ids.next_id() << '\n';

    // Leaf's table: the row is inserted by whoever runs the Leaf fleet; a missing row is an
    // error that says so. Leaf and flakeid take disjoint segments of it.
    flakeid::segment_generator orders{store.distributor("order", flakeid::mysql_table::leaf), 100};
    std::cout << "order " << orders.next_id() << '\n';

    flakeid::segment_generator invoices{store.distributor("invoice"), 100};
    std::cout << "invoice " << invoices.next_id() << '\n';
  } catch (const std::exception& e) {  // typed errors: flakeid::lease_store_error, ...
    std::cerr << e.what() << '\n';
    return 1;
  }
  return 0;
}
