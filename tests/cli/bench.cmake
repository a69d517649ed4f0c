# bench: the shape of the output, never a speed.
# Included by cli_test.cmake with -DPART=bench.

# ---- bench: the shape of the output, never a speed ---------------------------------------------
# Each run is short (--seconds 0.01: ten 1 ms ticks). Figures are whatever the machine gives; the
# checks are on the lines, the columns and the capacity, which the layout fixes.
# (CMake's regular expressions take at most 9 groups: "-" for an unknown figure is in the classes.)
set(bench_row_tail " +[0-9,]+ +[0-9.-]+ +[0-9%-]+ +[0-9,]+ +[0-9.x-]+ +[0-9.]+x\n")
set(bench_head "generator  threads            IDs/s  CPU ns/ID  CPU share      floor IDs/s  vs floor  vs capacity\n")
expect_match(bench_text
  "^layout twitter: ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms\ncapacity 4,096,000 IDs/s: 4,096 IDs per 1 ms tick\nthreads 1,2; each measurement 10 ticks \\(0\\.010 s\\); [0-9]+ hardware threads\nfloor: each thread reads the wall clock and adds 1 to one shared counter\n\n${bench_head}classic +1${bench_row_tail}classic +2${bench_row_tail}$"
  bench --layout twitter --generator classic --threads 1,2 --seconds 0.01)
# Without --generator: every generator that fits the layout, in this order, per thread count.
expect_match(bench_all
  "\n${bench_head}classic +1${bench_row_tail}cosid +1${bench_row_tail}tick +1${bench_row_tail}blocks +1${bench_row_tail}$"
  bench --threads 1 --seconds 0.01)
# Without --threads: 1, 2, 4, ... up to the hardware threads, and those.
run(bench --generator tick --seconds 0.01)
string(REGEX MATCH "\nthreads ([0-9,]+); each measurement [^\n]*; ([0-9]+) hardware threads\n" line "${out}")
set(counts "${CMAKE_MATCH_1}")
set(hardware "${CMAKE_MATCH_2}")
set(expected_counts "")
if(hardware)
  set(n 1)
  while(n LESS hardware)
    string(APPEND expected_counts "${n},")
    math(EXPR n "${n} * 2")
  endwhile()
  string(APPEND expected_counts "${hardware}")
endif()
string(REGEX MATCHALL "\ntick +[0-9]+ " rows "${out}")
list(LENGTH rows row_count)
string(REPLACE "," ";" count_list "${counts}")
list(LENGTH count_list count_count)
if(NOT rc EQUAL 0 OR NOT hardware OR NOT counts STREQUAL expected_counts OR NOT row_count EQUAL count_count)
  failed(bench_default_threads "bench --generator tick: exit ${rc}, threads '${counts}' (expected '${expected_counts}'), ${row_count} rows\n${out}${err}")
endif()
# A gene layout: the gene generator and the others, each thread cycling through the keys;
# capacity 128 IDs per tick for each of 32 genes. JSON: one object per row, nothing else.
set(json_tail ",\"threads\":1,\"ids_per_s\":[0-9]+,\"cpu_ns_per_id\":[0-9.nul]+,\"cpu_share\":[0-9.]+,\"floor_ids_per_s\":[0-9]+,\"vs_floor\":[0-9.nul]+,\"capacity_ids_per_s\":4096000,\"vs_capacity\":[0-9.]+}\n")
expect_match(bench_gene_json
  "^{\"layout\":\"seed_gene\",\"generator\":\"gene\"${json_tail}{\"layout\":\"seed_gene\",\"generator\":\"cosid\"${json_tail}{\"layout\":\"seed_gene\",\"generator\":\"tick\"${json_tail}$"
  bench --layout seed_gene --threads 1 --seconds 0.01 --format json)
run(bench --layout seed_gene --generator cosid --threads 1 --seconds 0.01)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\ncapacity 4,096,000 IDs/s: 128 IDs per 1 ms tick for each of 32 genes\n")
  failed(bench_gene_capacity "bench --layout seed_gene: exit ${rc}\n${out}${err}")
endif()
# Sonyflake: 256 IDs per 10 ms tick; a measurement lasts whole ticks, at least one. TSV: a header
# and a row per measurement.
expect_match(bench_sonyflake_tsv
  "^layout\tgenerator\tthreads\tids_per_s\tcpu_ns_per_id\tcpu_share\tfloor_ids_per_s\tvs_floor\tcapacity_ids_per_s\tvs_capacity\nsonyflake\tclassic\t1\t[0-9]+\t[0-9.]*\t[0-9.]+\t[0-9]+\t[0-9.]*\t25600\t[0-9.]+\nsonyflake\tclassic\t2\t[0-9]+\t[0-9.]*\t[0-9.]+\t[0-9]+\t[0-9.]*\t25600\t[0-9.]+\n$"
  bench --layout sonyflake --generator classic --threads 1,2 --seconds 0.01 --format tsv)
run(bench --layout mastodon --generator cosid --threads 1 --seconds 0.02)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\ncapacity 65,536,000 IDs/s: 65,536 IDs per 1 ms tick\nthreads 1; each measurement 20 ticks \\(0\\.020 s\\);")
  failed(bench_mastodon "bench --layout mastodon: exit ${rc}\n${out}${err}")
endif()

# expect_message(<name> <exit code> <stderr> <args>...): that exit code, no stdout, exactly that
# stderr.
function(expect_message name code expected)
  run(${ARGN})
  if(NOT rc EQUAL code OR NOT out STREQUAL "" OR NOT err STREQUAL expected)
    failed(${name} "flakeid ${ARGN}\n  exit ${rc} (expected ${code})\n  stdout: ${out}\n  stderr: ${err}  expected: ${expected}")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()
expect_message(bench_threads_zero 2
  "flakeid bench: --threads '0': '0' is not a thread count in [1, 1024]; give counts separated by commas, such as 1,2,4\n"
  bench --threads 0)
expect_message(bench_threads_word 2
  "flakeid bench: --threads 'x': 'x' is not a thread count in [1, 1024]; give counts separated by commas, such as 1,2,4\n"
  bench --threads x)
expect_message(bench_threads_empty_item 2
  "flakeid bench: --threads '1,,2': '' is not a thread count in [1, 1024]; give counts separated by commas, such as 1,2,4\n"
  bench --threads 1,,2)
expect_message(bench_threads_too_many 2
  "flakeid bench: --threads '2,1025': '1025' is not a thread count in [1, 1024]; give counts separated by commas, such as 1,2,4\n"
  bench --threads 2,1025)
expect_message(bench_seconds_negative 2
  "flakeid bench: --seconds '-1' is not a number of seconds in [0.001, 60], such as 0.5\n"
  bench --seconds -1)
expect_message(bench_seconds_too_long 2
  "flakeid bench: --seconds '61' is not a number of seconds in [0.001, 60], such as 0.5\n"
  bench --seconds 61)
expect_message(bench_seconds_exponent 2
  "flakeid bench: --seconds '1e-2' is not a number of seconds in [0.001, 60], such as 0.5\n"
  bench --seconds 1e-2)
expect_message(bench_seconds_too_short 2
  "flakeid bench: --seconds '0.0001' is not a number of seconds in [0.001, 60], such as 0.5\n"
  bench --seconds 0.0001)
expect_message(bench_unknown_generator 2
  "flakeid bench: generator 'fast' is unknown; allowed: classic, gene, cosid, tick, blocks, all\n"
  bench --generator fast)
expect_message(bench_gene_without_gene 2
  "flakeid bench: the gene generator needs a layout whose lowest field is a gene, such as seed_gene; layout twitter has none\n"
  bench --generator gene --layout twitter)
expect_message(bench_blocks_with_gene 2
  "flakeid bench: the blocks generator needs a layout without a gene field; layout seed_gene has one\n"
  bench --generator blocks --layout seed_gene)
expect_message(bench_custom_layout 2
  "flakeid bench: layout 'ts:41,worker:9,seq:13' is not a preset; generators take their layout at compile time, so measure a custom layout from a program (flakeid::classic_snowflake<my_layout>); 'flakeid layouts' lists the presets\n"
  bench --layout ts:41,worker:9,seq:13)
expect_message(bench_operand 2
  "flakeid bench: unexpected argument '4'; see 'flakeid bench --help'\n"
  bench 4)
expect_message(bench_bad_format 2 "flakeid bench: format 'xml' is unknown; allowed: text, json, tsv\n"
  bench --format xml --threads 1)
# Baidu's 28 bits of seconds since 2016-05-20 ran out in 2024: nothing is measured.
expect_bad(bench_expired_layout
  "bench: time [0-9T:.-]+Z is outside the layout's range \\[2016-05-19T16:00:00\\.000Z, 2024-11-20T13:24:15\\.999Z\\]\n$"
  bench --layout baidu --generator classic --threads 1 --seconds 0.01)
