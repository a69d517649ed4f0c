// expect: gene_snowflake needs a gene field as the lowest field of the layout
// The gene generator on a layout without a gene field is rejected.
#include <flakeid/snowflake.hpp>

flakeid::gene_snowflake<flakeid::layouts::twitter> gen;
