// expect: gene_snowflake needs a gene field as the lowest field of the layout
// A gene above the sequence would break id % n == key % n, so it is rejected.
#include <flakeid/snowflake.hpp>

using namespace flakeid::fields;
constexpr flakeid::layout gene_high{{timestamp(41), gene(5), worker(5), sequence(12)}, 0};
flakeid::gene_snowflake<gene_high> gen;
