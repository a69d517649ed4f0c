# Drives the flakeid command-line tool and checks its exact output.
# Run as: cmake -DCLI=<path to flakeid> -P cli_test.cmake
if(NOT EXISTS "${CLI}")
  message(FATAL_ERROR "CLI=${CLI} does not exist")
endif()

set(failures 0)

# run(<args>...): runs the tool; sets rc, out, err in the caller.
macro(run)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID "${CLI}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()

# run_in(<stdin file> <args>...): as run, with standard input read from the file.
macro(run_in input)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID "${CLI}" ${ARGN}
                  INPUT_FILE "${input}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()

# A scratch directory for this run's input files.
string(RANDOM LENGTH 10 scratch_tag)
set(scratch "${CMAKE_CURRENT_BINARY_DIR}/cli-scratch-${scratch_tag}")
file(MAKE_DIRECTORY "${scratch}")

function(failed name what)
  message(SEND_ERROR "[${name}] ${what}")
  math(EXPR n "${failures} + 1")
  set(failures ${n} PARENT_SCOPE)
endfunction()

# expect_out(<name> <expected stdout> <args>...): exit 0, stdout exactly as given, stderr empty.
function(expect_out name expected)
  run(${ARGN})
  if(NOT rc EQUAL 0 OR NOT out STREQUAL expected OR NOT err STREQUAL "")
    failed(${name} "flakeid ${ARGN}\n  exit ${rc}\n  stdout:\n${out}  expected:\n${expected}  stderr: ${err}")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

# expect_bad(<name> <stderr regex> <args>...): exit 2, no stdout, one line on stderr matching.
function(expect_bad name regex)
  run(${ARGN})
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines line_count)
  if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT line_count EQUAL 1 OR NOT err MATCHES "^flakeid[^\n]*${regex}")
    failed(${name} "flakeid ${ARGN}\n  exit ${rc} (expected 2)\n  stdout: ${out}\n  stderr: ${err}  expected to match: ${regex}")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

# ---- parse: published IDs ------------------------------------------------------------------------
# Discord developer docs, "Snowflakes": 2016-04-30 11:18:25.796 UTC, worker 1, process 0, increment 7.
expect_out(parse_discord
  "id=175928847299117063 time=2016-04-30T11:18:25.796Z ticks=41944705796 worker=1 datacenter=0 sequence=7 layout=discord\n"
  parse 175928847299117063 --layout discord)
expect_out(parse_discord_json
  "{\"id\":\"175928847299117063\",\"time\":\"2016-04-30T11:18:25.796Z\",\"unix_ms\":1462015105796,\"ticks\":41944705796,\"worker\":1,\"datacenter\":0,\"sequence\":7,\"layout\":\"discord\"}\n"
  parse --format json --layout=discord 175928847299117063)
# X docs, Tweet object: created_at "Wed Oct 10 20:19:24 +0000 2018"; twitter is the default layout.
expect_out(parse_twitter_default
  "id=1050118621198921728 time=2018-10-10T20:19:24.211Z ticks=250367789554 datacenter=10 worker=27 sequence=0 layout=twitter\n"
  parse 1050118621198921728)
expect_out(parse_several
  "id=175928847299117063 time=2016-04-30T11:18:25.796Z ticks=41944705796 worker=1 datacenter=0 sequence=7 layout=discord\nid=0 time=2015-01-01T00:00:00.000Z ticks=0 worker=0 datacenter=0 sequence=0 layout=discord\n"
  parse --layout discord 175928847299117063 0)

# ---- parse: text forms, detected and forced ------------------------------------------------------
set(discord_line "id=175928847299117063 time=2016-04-30T11:18:25.796Z ticks=41944705796 worker=1 datacenter=0 sequence=7 layout=discord\n")
# All digits is decimal; other text is read in the one form that accepts it (a word of letters
# only is taken for no form). Text that several forms accept names a different number in each,
# so it needs --from (--input is its synonym); text no form accepts names the forms tried.
expect_out(parse_radix62 "${discord_line}" parse --layout discord --from radix62 Czks0tP37X)
expect_out(parse_base32 "${discord_line}" parse --layout discord --from base32 04W86BB0G4007)
expect_out(parse_base32_lower "${discord_line}" parse --layout discord --from=base32 04w86bb0g4007)
expect_out(parse_friendly "${discord_line}" parse --layout discord 20160430111825796-0-1-7)
expect_out(parse_input_radix36 "${discord_line}" parse --layout discord --input radix36 01C49KKPHNXTZ)
expect_out(parse_input_decimal "${discord_line}" parse --layout discord --input decimal 175928847299117063)
expect_out(parse_radix62_only_form "${discord_line}" parse --layout discord Czks0tP37X)
expect_out(decode_radix62_only_form "175928847299117063\n" decode Czks0tP37X)
expect_out(decode_radix62_only_form_json
  "{\"text\":\"Czks0tP37X\",\"form\":\"radix62\",\"id\":\"175928847299117063\"}\n"
  decode --format json Czks0tP37X)
expect_bad(parse_word_not_an_id " parse: 'nonsense' is not an ID in any text form; tried decimal \\(not all digits\\), friendly \\(no '-'\\), radix62 \\(a word without digits is not taken for an ID\\), radix36 \\(a word without digits is not taken for an ID\\), base32 \\(Crockford base32 text \"nonsense\" has 8 characters; exactly 13 are required\\)\n$"
           parse nonsense)
expect_bad(parse_garbage_not_an_id " parse: 'garbage' is not an ID in any text form; tried decimal \\(not all digits\\), friendly \\(no '-'\\), radix62 \\(a word"
           parse garbage)
expect_bad(parse_negative_not_an_id " parse: '-1' is not an ID in any text form; tried decimal \\(IDs are not negative\\), friendly \\(friendly ID \"-1\" must start with 17 digits"
           parse -- -1)
expect_bad(parse_base32_or_radix36 " parse: '04W86BB0G4007' could be radix36 \\(644314177741347079\\) or base32 \\(175928847299117063\\); pass --from radix36\\|base32\n$"
           parse 04W86BB0G4007)
expect_bad(parse_from_and_input "options '--from' and '--input' are the same option; give it once"
           parse --from radix62 --input radix36 Czks0tP37X)

# ---- encode and decode -------------------------------------------------------------------------
expect_out(encode_radix62 "Czks0tP37X\nLygHa16AHYF\n" encode --to radix62 175928847299117063 18446744073709551615)
expect_out(encode_radix62_pad "0Czks0tP37X\n00000000010\n" encode --to radix62 --pad 175928847299117063 62)
expect_out(encode_radix36 "3W5E11264SGSF\n" encode --to radix36 18446744073709551615)
expect_out(encode_base32 "04W86BB0G4007\nFZZZZZZZZZZZZ\n" encode --to base32 175928847299117063 18446744073709551615)
# CosId's own friendly form of 295913926632165376 is 20220320133617924-5-0 at UTC+8.
expect_out(encode_friendly_cosid "20220320053617924-5-0\n" encode --to friendly --layout cosid 295913926632165376)
expect_out(decode_friendly_cosid "295913926632165376\n" decode --from friendly --layout cosid 20220320053617924-5-0)
# All digits reads as decimal: "10" is ten, not radix62 62 (unless --from radix62); a '-' is the
# friendly form.
expect_out(decode_detected "10\n175928847299117063\n" decode --layout discord 10 20160430111825796-0-1-7)
expect_out(decode_radix62 "62\n" decode --from radix62 10)
expect_out(decode_radix36 "18446744073709551615\n" decode --to radix36 3W5E11264SGSF)
# What encode --to radix36 prints comes back as the same number with --from radix36, and is not
# guessed without it (as radix62 it is another number).
expect_out(encode_radix36_small "21I3V9\n" encode --to radix36 123456789)
expect_out(decode_radix36_small "123456789\n" decode --from radix36 21I3V9)
expect_bad(decode_radix36_not_guessed " decode: '21I3V9' could be radix62 \\(1851345367\\) or radix36 \\(123456789\\); pass --from radix62\\|radix36\n$"
           decode 21I3V9)
expect_bad(decode_radix36_or_base32 "'000000000000A' could be radix36 \\(10\\) or base32 \\(10\\); pass --from radix36\\|base32"
           decode 000000000000A)
expect_bad(decode_no_form " decode: 'zz!' is not an ID in any text form; tried decimal \\(not all digits\\), friendly \\(no '-'\\), radix62 \\(radix62 text \"zz!\" has '!' at index 2"
           decode zz!)
expect_bad(decode_too_long "'AAAAAAAAAAAAAAAAAAAA' is not an ID in any text form; tried .*radix62 \\(the longest form has 13 characters\\)"
           decode AAAAAAAAAAAAAAAAAAAA)
expect_out(encode_from_radix62 "04W86BB0G4007\n" encode --from radix62 --to base32 Czks0tP37X)

# ---- range -------------------------------------------------------------------------------------
set(day_2024 "[1741610183685046272, 1741972571550646272)\nid >= 1741610183685046272 AND id < 1741972571550646272\n")
expect_out(range_dates "${day_2024}" range 2024-01-01 2024-01-02)
expect_out(range_iso "${day_2024}" range 2024-01-01T00:00:00Z 2024-01-02T08:00:00+08:00 --layout twitter)
expect_out(range_unix_ms "${day_2024}" range 1704067200000 1704153600000)
expect_out(range_column
  "[1741610183685046272, 1741610183685046272)\ntweet_id >= 1741610183685046272 AND tweet_id < 1741610183685046272\n"
  range 2024-01-01 2024-01-01 --column tweet_id)
# The layout's last tick: the bound past 2^63 - 1 would not fit a BIGINT, so the predicate names
# the largest ID.
expect_out(range_last_tick
  "[9223372036850581504, 9223372036854775808)\nid >= 9223372036850581504 AND id <= 9223372036854775807\n"
  range 2080-07-10T17:30:30.208Z 2080-07-10T17:30:30.209Z)

# ---- gen ---------------------------------------------------------------------------------------
run(gen -n 5 --worker 3 --datacenter 1)
string(REGEX MATCHALL "[0-9]+" ids "${out}")
list(LENGTH ids count)
if(NOT rc EQUAL 0 OR NOT count EQUAL 5 OR NOT err STREQUAL "")
  failed(gen_count "gen -n 5: exit ${rc}, ${count} IDs, stderr '${err}'")
else()
  set(previous "")
  foreach(id IN LISTS ids)
    string(LENGTH "${id}" len)
    if(previous AND (NOT len EQUAL 19 OR NOT previous STRLESS id))
      failed(gen_order "IDs not increasing: ${previous} then ${id}")
    endif()
    set(previous ${id})
  endforeach()
  run(parse ${ids})
  string(REGEX MATCHALL "datacenter=1 worker=3 sequence=[0-9]+ layout=twitter\n" fields "${out}")
  list(LENGTH fields n)
  if(NOT n EQUAL 5)
    failed(gen_fields "minted IDs decode to\n${out}")
  endif()
endif()

run(gen --generator gene --gene 45 -n 3 --worker 2)
string(REGEX MATCHALL "[0-9]+" ids "${out}")
run(parse --layout seed_gene ${ids})
string(REGEX MATCHALL "worker=2 sequence=[0-9]+ gene=13 layout=seed_gene\n" fields "${out}")  # 45 mod 32
list(LENGTH fields n)
if(NOT n EQUAL 3)
  failed(gen_gene "gene IDs decode to\n${out}")
endif()

foreach(generator IN ITEMS classic cosid tick)
  run(gen --generator ${generator} --to base32 -n 2 --worker 1)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^[0-9A-Z]+\n[0-9A-Z]+\n$")
    failed(gen_${generator} "gen --generator ${generator}: exit ${rc}\n${out}${err}")
  endif()
endforeach()

execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_WORKER_ID=9 "${CLI}" gen --layout sonyflake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "flakeid gen: worker 9 from env FLAKEID_WORKER_ID\n")
  failed(gen_env "FLAKEID_WORKER_ID=9: exit ${rc}, stderr '${err}'")
endif()
string(STRIP "${out}" id)
run(parse --layout sonyflake ${id})
if(NOT out MATCHES " worker=9 layout=sonyflake\n$")
  failed(gen_env_worker "sonyflake ID from worker 9 decodes to ${out}")
endif()
# Without --worker or FLAKEID_WORKER_ID, gen takes a host-local file lease: two runs at once
# hold two different ids; when no id can be leased it fails (exit 1) and never falls back to a
# fixed worker.
string(RANDOM LENGTH 10 tag)
set(lease_dir "${CMAKE_CURRENT_BINARY_DIR}/cli-leases-${tag}")
file(MAKE_DIRECTORY "${lease_dir}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=${lease_dir}
          FLAKEID_LEASE_NAMESPACE=clitest "${CLI}" gen
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "flakeid gen: worker 0 from lease file lease ${lease_dir} namespace clitest id 0\n")
  failed(gen_default_lease "no worker: exit ${rc}, stderr '${err}'")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=${lease_dir}
          FLAKEID_LEASE_NAMESPACE=clitest "${CLI}" gen
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "flakeid gen: worker 1 from lease file lease ${lease_dir} namespace clitest id 1\n")
  failed(gen_default_lease_guarded "id 0 is in its safe-guard period: exit ${rc}, stderr '${err}'")
endif()
file(REMOVE_RECURSE "${lease_dir}")
# A claim in a directory others may write (as /dev/shm/flakeid after a reboot) waits ttl +
# safe_guard before it mints: gen says so on stderr before the wait, with how long and why.
set(shared_dir "${CMAKE_CURRENT_BINARY_DIR}/cli-shared-leases-${tag}")
file(MAKE_DIRECTORY "${shared_dir}")
execute_process(COMMAND chmod 1777 "${shared_dir}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=${shared_dir}
          FLAKEID_LEASE_NAMESPACE=clitest "${CLI}" gen
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "^flakeid gen: worker id 0 waits [0-9]+ ms before it mints: the store may have lost its records \\(ttl \\+ safe_guard, 12000 ms, from Unix ms [0-9]+\\) \\(file lease [^\n]*\\)\nflakeid gen: worker 0 from lease file lease ${shared_dir} namespace clitest id 0\n$")
  failed(gen_lease_wait_said "a claim that waits: exit ${rc}, stderr '${err}'")
endif()
file(REMOVE_RECURSE "${shared_dir}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=${lease_dir}/missing
          "${CLI}" gen
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 1 OR NOT out STREQUAL "" OR NOT err STREQUAL "flakeid gen: no worker id could be leased: cannot create the lease directory ${lease_dir}/missing: No such file or directory; pass --worker W (or set FLAKEID_WORKER_ID) to use a fixed id\n")
  failed(gen_no_worker_no_fallback "no lease directory: exit ${rc}, stdout '${out}', stderr '${err}'")
endif()
# A spec equal to a preset mints as that preset (mastodon: the spec's epoch and tick default to
# 0 and 1 ms). CMake would split a spec with ';', so these specs have none. The layout has no
# worker field: --worker 0 keeps this check off the host's default lease directory, where
# another process could have used its only id within the last safe_guard.
run(gen --to friendly --layout ts:48,seq:16 --worker 0)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^[0-9]+-[0-9]+\n$")
  failed(gen_spec_of_a_preset "exit ${rc}\n${out}${err}")
endif()

# ---- gen --generator segment -------------------------------------------------------------------
# The memory store starts at 1 on every run.
expect_out(gen_segment_memory "1\n2\n3\n" gen --generator segment --store memory -n 3)
expect_out(gen_segment_memory_step "1\n2\n3\n4\n5\n" gen --generator segment --store memory --step 2 -n 5)
expect_out(gen_segment_memory_start "5000\n5001\n5002\n" gen --generator segment --store memory --start 5000 -n 3)
expect_out(gen_segment_memory_stride "3\n7\n11\n15\n" gen --generator segment --store memory --stride 4 --remainder 3 --step 2 -n 4)
expect_out(gen_segment_memory_start_stride "1002\n1004\n" gen --generator segment --store memory --start 1001 --stride 2 -n 2)
expect_out(gen_segment_base32 "0000000000001\n0000000000002\n" gen --generator segment --store memory -n 2 --to base32)
# The file store: each run goes on after the segment the run before reserved (its step; by
# default the run's N), never repeating a number.
string(RANDOM LENGTH 10 tag)
set(segment_dir "${CMAKE_CURRENT_BINARY_DIR}/cli-segments-${tag}")
# seg_run(<args>...): gen --generator segment --store file with FLAKEID_SEGMENT_DIR set.
macro(seg_run)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_SEGMENT_DIR=${segment_dir} "${CLI}"
                          gen --generator segment --store file ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()
function(expect_seg name expected)
  seg_run(${ARGN})
  if(NOT rc EQUAL 0 OR NOT out STREQUAL expected OR NOT err STREQUAL "")
    failed(${name} "gen --store file ${ARGN}\n  exit ${rc}\n  stdout:\n${out}  expected:\n${expected}  stderr: ${err}")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()
expect_seg(gen_segment_file_first "1\n2\n3\n" --key orders -n 3)
expect_seg(gen_segment_file_second "4\n5\n6\n" --key orders -n 3)
expect_seg(gen_segment_file_step_first "7\n8\n" --key orders -n 2 --step 10)
expect_seg(gen_segment_file_step_second "17\n18\n" --key orders -n 2 --step 10)
expect_seg(gen_segment_file_other_key "1\n" --key invoices)
expect_seg(gen_segment_file_default_key "1\n2\n" -n 2)
file(READ "${segment_dir}/orders.segment" counter)
if(NOT counter STREQUAL "00000000000000000026\n")
  failed(gen_segment_file_counter "orders.segment holds '${counter}'")
endif()
file(REMOVE_RECURSE "${segment_dir}")

# ---- sql: expressions, functions and DDL that know the layout ---------------------------------------
expect_out(sql_fields_sonyflake
  "created_at  (timestamptz '1970-01-01 00:00:00+00' + ((((id >> 24) * 10) + 1409529600000) / 1000) * interval '1 second' + ((((id >> 24) * 10) + 1409529600000) % 1000) * interval '1 millisecond')
unix_ms     (((id >> 24) * 10) + 1409529600000)
ticks       (id >> 24)
sequence    ((id >> 16) & 255)
worker      (id & 65535)
shard       (id % 16)
"
  sql fields --layout sonyflake --shards 16 --by worker)
expect_out(sql_fields_mysql_column
  "created_at  CAST(TIMESTAMP'1970-01-01 00:00:00' + INTERVAL (((o.order_id >> 22) + 1724505364000) DIV 1000) SECOND + INTERVAL ((((o.order_id >> 22) + 1724505364000) MOD 1000) * 1000) MICROSECOND AS DATETIME(3))
unix_ms     ((o.order_id >> 22) + 1724505364000)
ticks       (o.order_id >> 22)
datacenter  ((o.order_id >> 17) & 31)
worker      ((o.order_id >> 12) & 31)
sequence    ((o.order_id >> 5) & 127)
gene        (o.order_id & 31)
"
  sql fields --layout seed_gene --dialect mariadb --column o.order_id)
# A full 64-bit layout needs numeric on PostgreSQL; mastodon's times outlast MySQL's DATETIME.
expect_out(sql_fields_numeric
  "created_at  (timestamptz '1970-01-01 00:00:00+00' + ((mod(div(id, 65536), 281474976710656))::bigint / 1000) * interval '1 second' + ((mod(div(id, 65536), 281474976710656))::bigint % 1000) * interval '1 millisecond')
unix_ms     (mod(div(id, 65536), 281474976710656))::bigint
ticks       (mod(div(id, 65536), 281474976710656))::bigint
sequence    (mod(id, 65536))::bigint
"
  sql fields --layout mastodon --type numeric)
expect_out(sql_functions_postgres
  "CREATE OR REPLACE FUNCTION \"orders_created_at\"(id bigint) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT (timestamptz '1970-01-01 00:00:00+00' + (((\$1 >> 22) + 1577203200000) / 1000) * interval '1 second' + (((\$1 >> 22) + 1577203200000) % 1000) * interval '1 millisecond')\$\$;
CREATE OR REPLACE FUNCTION \"orders_unix_ms\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT ((\$1 >> 22) + 1577203200000)\$\$;
CREATE OR REPLACE FUNCTION \"orders_ticks\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT (\$1 >> 22)\$\$;
CREATE OR REPLACE FUNCTION \"orders_worker\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT ((\$1 >> 12) & 1023)\$\$;
CREATE OR REPLACE FUNCTION \"orders_sequence\"(id bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS \$\$SELECT (\$1 & 4095)\$\$;
"
  sql functions --layout cosid --prefix orders_)
expect_out(sql_partitions_postgres
  "CREATE TABLE \"orders\" (\"id\" bigint NOT NULL PRIMARY KEY)
PARTITION BY RANGE (\"id\");
CREATE TABLE \"orders_202601\" PARTITION OF \"orders\" FOR VALUES FROM (2006515713438646272) TO (2017749737272246272);
CREATE TABLE \"orders_202602\" PARTITION OF \"orders\" FOR VALUES FROM (2017749737272246272) TO (2027896597509046272);
"
  sql partitions --table orders --from 2026-01-01 --to 2026-03-01)
expect_out(sql_partitions_mysql_days
  "CREATE TABLE `orders` (`id` BIGINT NOT NULL PRIMARY KEY, `total` DECIMAL(10,2))
PARTITION BY RANGE (`id`) (
  PARTITION `p20261231` VALUES LESS THAN (2138787284382646272),
  PARTITION `p20270101` VALUES LESS THAN (2139149672248246272)
);
"
  sql partitions --dialect mysql --table orders --from 2026-12-31 --to 2027-01-02 --every day
      --columns "`id` BIGINT NOT NULL PRIMARY KEY, `total` DECIMAL(10,2)")
expect_out(sql_shards_mysql
  "CREATE TABLE `app`.`orders` (`id` BIGINT NOT NULL PRIMARY KEY)
PARTITION BY HASH (`id`) PARTITIONS 4;
"
  sql shards --layout seed_gene --dialect mysql --table app.orders --shards 4)
expect_out(sql_shards_postgres_worker
  "CREATE TABLE \"orders\" (\"id\" bigint NOT NULL)
PARTITION BY LIST ((((\"id\" >> 12) & 31) % 2));
CREATE TABLE \"orders_0\" PARTITION OF \"orders\" FOR VALUES IN (0);
CREATE TABLE \"orders_1\" PARTITION OF \"orders\" FOR VALUES IN (1);
"
  sql shards --table orders --shards 2 --by worker)
# Bit 63 set: the message names the option that takes a wider column type.
expect_bad(sql_signed_full_layout " sql: layout discord's IDs reach 18446744073709551615, past a signed BIGINT's 9223372036854775807 \\(the layout uses bit 63\\); pass --type numeric \\(numeric\\(20,0\\)\\)\n$"
           sql fields --layout discord)
expect_bad(sql_mysql_full_layout "; pass --type unsigned \\(BIGINT UNSIGNED\\)\n$"
           sql fields --layout discord --dialect mysql --type bigint)
expect_bad(sql_postgres_unsigned "postgres has no unsigned bigint" sql fields --type unsigned)
expect_bad(sql_gene_shards "shard count 12 cannot be honoured by a 5-bit gene: it must be a power of two in \\[1, 32\\]" sql shards --layout seed_gene --table orders --shards 12)
expect_bad(sql_no_gene "shard by gene: the layout has no gene field; route by worker or hash" sql shards --table orders --shards 4)
expect_bad(sql_bad_table "table \"or-ders\" has '-' at index 2" sql partitions --table or-ders --from 2026-01-01 --to 2026-02-01)
expect_bad(sql_long_table "partition \"a+_202601\" is 67 characters long; postgres allows at most 63" sql partitions --table aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa --from 2026-01-01 --to 2026-02-01)
expect_bad(sql_bad_from "sql: --from 'x' is neither a UTC time" sql partitions --table orders --from x --to 2026-02-01)
expect_bad(sql_no_table "sql partitions: give --table" sql partitions --from 2026-01-01 --to 2026-02-01)
expect_bad(sql_bad_period "--every 'week' is unknown; use day, month or year" sql partitions --table orders --from 2026-01-01 --to 2026-02-01 --every week)
expect_bad(sql_bad_what "unknown SQL 'views'" sql views)

# ---- bench: the shape of the output, never a speed ---------------------------------------------
# Each run is short (--seconds 0.01: ten 1 ms ticks). Figures are whatever the machine gives; the
# checks are on the lines, the columns and the capacity, which the layout fixes.
# (CMake's regular expressions take at most 9 groups: "-" for an unknown figure is in the classes.)
set(bench_row_tail " +[0-9,]+ +[0-9.-]+ +[0-9%-]+ +[0-9,]+ +[0-9.x-]+ +[0-9.]+x\n")
set(bench_head "generator  threads            IDs/s  CPU ns/ID  CPU share      floor IDs/s  vs floor  vs capacity\n")
run(bench --layout twitter --generator classic --threads 1,2 --seconds 0.01)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out MATCHES
   "^layout twitter: ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms\ncapacity 4,096,000 IDs/s: 4,096 IDs per 1 ms tick\nthreads 1,2; each measurement 10 ticks \\(0\\.010 s\\); [0-9]+ hardware threads\nfloor: each thread reads the wall clock and adds 1 to one shared counter\n\n${bench_head}classic +1${bench_row_tail}classic +2${bench_row_tail}$")
  failed(bench_text "bench --threads 1,2: exit ${rc}\n${out}${err}")
endif()
# Without --generator: every generator that fits the layout, in this order, per thread count.
run(bench --threads 1 --seconds 0.01)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out MATCHES
   "\n${bench_head}classic +1${bench_row_tail}cosid +1${bench_row_tail}tick +1${bench_row_tail}blocks +1${bench_row_tail}$")
  failed(bench_all "bench --threads 1: exit ${rc}\n${out}${err}")
endif()
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
run(bench --layout seed_gene --threads 1 --seconds 0.01 --format json)
set(json_tail ",\"threads\":1,\"ids_per_s\":[0-9]+,\"cpu_ns_per_id\":[0-9.nul]+,\"cpu_share\":[0-9.]+,\"floor_ids_per_s\":[0-9]+,\"vs_floor\":[0-9.nul]+,\"capacity_ids_per_s\":4096000,\"vs_capacity\":[0-9.]+}\n")
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out MATCHES
   "^{\"layout\":\"seed_gene\",\"generator\":\"gene\"${json_tail}{\"layout\":\"seed_gene\",\"generator\":\"cosid\"${json_tail}{\"layout\":\"seed_gene\",\"generator\":\"tick\"${json_tail}$")
  failed(bench_gene_json "bench --layout seed_gene --format json: exit ${rc}\n${out}${err}")
endif()
run(bench --layout seed_gene --generator cosid --threads 1 --seconds 0.01)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\ncapacity 4,096,000 IDs/s: 128 IDs per 1 ms tick for each of 32 genes\n")
  failed(bench_gene_capacity "bench --layout seed_gene: exit ${rc}\n${out}${err}")
endif()
# Sonyflake: 256 IDs per 10 ms tick; a measurement lasts whole ticks, at least one. TSV: a header
# and a row per measurement.
run(bench --layout sonyflake --generator classic --threads 1,2 --seconds 0.01 --format tsv)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out MATCHES
   "^layout\tgenerator\tthreads\tids_per_s\tcpu_ns_per_id\tcpu_share\tfloor_ids_per_s\tvs_floor\tcapacity_ids_per_s\tvs_capacity\nsonyflake\tclassic\t1\t[0-9]+\t[0-9.]*\t[0-9.]+\t[0-9]+\t[0-9.]*\t25600\t[0-9.]+\nsonyflake\tclassic\t2\t[0-9]+\t[0-9.]*\t[0-9.]+\t[0-9]+\t[0-9.]*\t25600\t[0-9.]+\n$")
  failed(bench_sonyflake_tsv "bench --layout sonyflake --format tsv: exit ${rc}\n${out}${err}")
endif()
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

# ---- help and version ----------------------------------------------------------------------------
foreach(command IN ITEMS gen parse range encode decode layouts sql bench)
  run(${command} --help)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: flakeid ${command}")
    failed(help_${command} "${command} --help: exit ${rc}\n${out}")
  endif()
  run(help ${command})
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: flakeid ${command}")
    failed(help_cmd_${command} "help ${command}: exit ${rc}\n${out}")
  endif()
endforeach()
run(--help)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: flakeid <command>")
  failed(help "--help: exit ${rc}\n${out}")
endif()
run(--version)
if(NOT rc EQUAL 0 OR NOT out MATCHES " [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  failed(version "--version: ${out}")
endif()
run(layouts)
if(NOT out MATCHES "\ndiscord +ts:42,worker:5,dc:5,seq:12;epoch=1420070400000;tick=1ms +expires 2154-05-15T07:35:11.103Z\n")
  failed(layouts "layouts:\n${out}")
endif()

# ---- records: --format text|json|tsv, standard input, batches ----------------------------------
expect_out(parse_tsv
  "id\ttime\tunix_ms\tticks\tworker\tdatacenter\tsequence\tlayout\n175928847299117063\t2016-04-30T11:18:25.796Z\t1462015105796\t41944705796\t1\t0\t7\tdiscord\n0\t2015-01-01T00:00:00.000Z\t1420070400000\t0\t0\t0\t0\tdiscord\n"
  parse --format tsv --layout discord 175928847299117063 0)
expect_out(decode_json
  "{\"text\":\"Czks0tP37X\",\"form\":\"radix62\",\"id\":\"175928847299117063\"}\n"
  decode --format=json --from radix62 Czks0tP37X)
expect_out(encode_json
  "{\"id\":\"175928847299117063\",\"form\":\"base32\",\"text\":\"04W86BB0G4007\"}\n"
  encode --to base32 --format json 175928847299117063)
expect_out(encode_tsv "id\tform\ttext\n1\tradix36\t1\n36\tradix36\t10\n" encode --to radix36 --format tsv 1 36)
run(layouts --format json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^{\"name\":\"twitter\",\"spec\":\"ts:41,dc:5,worker:5,seq:12;epoch=1288834974657;tick=1ms\",\"expires\":\"2080-07-10T17:30:30.208Z\"}\n{\"name\":\"discord\",")
  failed(layouts_json "layouts --format json: exit ${rc}\n${out}${err}")
endif()
# JSON strings are escaped: a double-quoted column name with a backslash in it.
expect_out(range_json_escaped
  "{\"from\":\"2024-01-01T00:00:00.000Z\",\"to\":\"2024-01-02T00:00:00.000Z\",\"lo\":\"1741610183685046272\",\"hi\":\"1741972571550646272\",\"predicate\":\"\\\"a\\\\b\\\" >= 1741610183685046272 AND \\\"a\\\\b\\\" < 1741972571550646272\"}\n"
  range 2024-01-01 2024-01-02 --format json "--column=\"a\\b\"")
run(gen -n 3 --worker 1 --format json)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^{\"id\":\"[0-9]+\"}\n{\"id\":\"[0-9]+\"}\n{\"id\":\"[0-9]+\"}\n$")
  failed(gen_json "gen --format json: exit ${rc}\n${out}${err}")
endif()
run(gen -n 5000 --worker 1 --to base32 --format tsv)
string(REGEX MATCHALL "\n" lines "${out}")
list(LENGTH lines line_count)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^id\ttext\n[0-9]+\t[0-9A-Z]+\n" OR NOT line_count EQUAL 5001)
  failed(gen_tsv "gen --format tsv: exit ${rc}, ${line_count} lines\n${err}")
endif()
# Standard input: for '-' and when no ID is given; IDs separated by any white space.
file(WRITE "${scratch}/ids" "175928847299117063\n  0\t175928847299117063\n")
run_in("${scratch}/ids" parse --layout discord)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "${discord_line}id=0 time=2015-01-01T00:00:00.000Z ticks=0 worker=0 datacenter=0 sequence=0 layout=discord\n${discord_line}")
  failed(parse_stdin "parse < ids: exit ${rc}\n${out}${err}")
endif()
run_in("${scratch}/ids" encode --to radix62 1 - 2)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "1\nCzks0tP37X\n0\nCzks0tP37X\n2\n")
  failed(encode_stdin_dash "encode 1 - 2 < ids: exit ${rc}\n${out}${err}")
endif()
# A batch prints what it can and reports the rest, one line each, then exits 2.
file(WRITE "${scratch}/mixed" "10\nzz!\n20160430111825796-0-1-7\n21I3V9\n")
run_in("${scratch}/mixed" decode --layout discord)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "10\n175928847299117063\n"
   OR NOT err MATCHES "^flakeid decode: 'zz!' is not an ID in any text form;[^\n]*\nflakeid decode: '21I3V9' could be radix62 \\(1851345367\\) or radix36 \\(123456789\\); pass --from radix62\\|radix36\n$")
  failed(decode_batch "decode < mixed: exit ${rc}\nstdout:\n${out}stderr:\n${err}")
endif()

# ---- times: from now, fractions, seconds ------------------------------------------------------
set(hour_2024 "[1741610183685046272, 1741625283179446272)\nid >= 1741610183685046272 AND id < 1741625283179446272\n")
# expect_now(<name> <FLAKEID_NOW> <expected stdout> <args>...)
function(expect_now name now expected)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_NOW=${now} "${CLI}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL expected OR NOT err STREQUAL "")
    failed(${name} "FLAKEID_NOW=${now} flakeid ${ARGN}\n  exit ${rc}\n  stdout:\n${out}  expected:\n${expected}  stderr: ${err}")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()
expect_out(range_hour "${hour_2024}" range 2024-01-01 2024-01-01T01:00Z)
expect_now(range_now_minus_1h 2024-01-01T01:00:00Z "${hour_2024}" range now-1h now)
expect_now(range_minus_1h 1704070800000 "${hour_2024}" range -1h now)
expect_now(range_minus_30m_plus_30m 2024-01-01T00:30:00Z "${hour_2024}" range -30m now+30m)
expect_now(range_minus_compound 2024-01-01T01:30:00.000Z "${hour_2024}" range now-1h30m -30m)
expect_now(sql_partitions_now 2026-02-15T00:00:00Z
  "CREATE TABLE \"orders\" (\"id\" bigint NOT NULL PRIMARY KEY)
PARTITION BY RANGE (\"id\");
CREATE TABLE \"orders_202601\" PARTITION OF \"orders\" FOR VALUES FROM (2006515713438646272) TO (2017749737272246272);
CREATE TABLE \"orders_202602\" PARTITION OF \"orders\" FOR VALUES FROM (2017749737272246272) TO (2027896597509046272);
"
  sql partitions --table orders --from now-45d --to now+14d)
# Without FLAKEID_NOW, 'now' is the clock: an hour back to now is 3600000 ms of twitter ticks
# wide, 3600000 << 22 in IDs.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_NOW "${CLI}" range now-1h now --format tsv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "\n[^\t]+\t[^\t]+\t([0-9]+)\t([0-9]+)\t")
  failed(range_now_clock "range now-1h now: exit ${rc}\n${out}${err}")
else()
  math(EXPR width "${CMAKE_MATCH_2} - ${CMAKE_MATCH_1}" OUTPUT_FORMAT DECIMAL)
  if(NOT width EQUAL 15099494400000)
    failed(range_now_clock_width "range now-1h now is ${width} IDs wide")
  endif()
endif()
# 1 to 9 fraction digits, floored to the millisecond.
expect_out(range_fractions
  "[1741610184200945664, 1741610184205139968)\nid >= 1741610184200945664 AND id < 1741610184205139968\n"
  range 2024-01-01T00:00:00.123456789Z 2024-01-01T00:00:00.1249+00:00)
expect_out(range_fraction_one_digit
  "[1741610185782198272, 1741610185782198272)\nid >= 1741610185782198272 AND id < 1741610185782198272\n"
  range 2024-01-01T00:00:00.5Z 2024-01-01T00:00:00.500Z)
expect_bad(range_ten_fraction_digits "FROM '2024-01-01T00:00:00.1234567890Z' is neither a UTC time"
           range 2024-01-01T00:00:00.1234567890Z 2024-01-02)
expect_bad(range_bad_relative "FROM 'now-1x' is neither a UTC time .*a time from now \\(now, now-1h, now\\+15m, -15m\\)"
           range now-1x now)
execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_NOW=yesterday "${CLI}" range now-1h now
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err STREQUAL "flakeid range: FLAKEID_NOW 'yesterday' is neither a UTC time (2024-01-01T00:00:00Z) nor Unix milliseconds\n")
  failed(range_bad_now_env "FLAKEID_NOW=yesterday: exit ${rc}, stderr '${err}'")
endif()
# A number of 9 or 10 digits looks like Unix seconds: a note, or part of the error when the time
# falls outside the layout.
expect_bad(range_seconds_hint "outside the layout's range .*; FROM 1704067200 is read as Unix milliseconds \\(1970-01-20T17:21:07.200Z\\); if it is Unix seconds, write 1704067200000 \\(2024-01-01T00:00:00.000Z\\)"
           range 1704067200 1704153600000)
run(range --layout mastodon 1704067200 1704067201)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "flakeid range: FROM 1704067200 is read as Unix milliseconds (1970-01-20T17:21:07.200Z); if it is Unix seconds, write 1704067200000 (2024-01-01T00:00:00.000Z)\nflakeid range: TO 1704067201 is read as Unix milliseconds (1970-01-20T17:21:07.201Z); if it is Unix seconds, write 1704067201000 (2024-01-01T00:00:01.000Z)\n")
  failed(range_seconds_note "exit ${rc}, stderr '${err}'")
endif()
expect_out(range_seconds_quiet "[111677748019200, 111677748084736)\nid >= 111677748019200 AND id < 111677748084736\n"
           range -q --layout mastodon 1704067200 1704067201)
# --column is an SQL identifier.
expect_out(range_column_qualified
  "[1741610183685046272, 1741610183685046272)\nt.tweet_id >= 1741610183685046272 AND t.tweet_id < 1741610183685046272\n"
  range 2024-01-01 2024-01-01 --column t.tweet_id)
expect_bad(range_column_injection "--column 'id OR 1=1' is not an SQL identifier"
           range 2024-01-01 2024-01-02 "--column=id OR 1=1")
expect_bad(range_column_digit "--column '1id' is not an SQL identifier" range 2024-01-01 2024-01-02 --column 1id)
expect_bad(sql_column_bad "sql: --column 'a b' is not an SQL identifier" sql fields --column "a b")

# ---- parse --bits ------------------------------------------------------------------------------
expect_out(parse_bits_discord
  "id=175928847299117063 layout=discord
000000100111000100000110010110101100000100 00001 00000 000000000111
bits   width  field       value
63-22     42  timestamp   41944705796 (2016-04-30T11:18:25.796Z)
21-17      5  worker      1
16-12      5  datacenter  0
11-0      12  sequence    7
"
  parse --bits --layout discord 175928847299117063)
expect_out(parse_bits_twitter
  "id=1050118621198921728 layout=twitter
0 00011101001001011000101010100100111110010 01010 11011 000000000000
bits   width  field       value
63         1  sign        0
62-22     41  timestamp   250367789554 (2018-10-10T20:19:24.211Z)
21-17      5  datacenter  10
16-12      5  worker      27
11-0      12  sequence    0
"
  parse --bits 1050118621198921728)
expect_bad(parse_bits_json "--bits draws the bits as text; drop --format json" parse --bits --format json 1)

# ---- getopt habits, help, version, write errors ------------------------------------------------
expect_out(gen_n_attached "1\n2\n3\n" gen --generator segment --store memory -n3)
expect_out(gen_options_equals "1\n2\n" gen --generator=segment --store=memory -n 2)
expect_bad(option_typo "parse: unknown option '--layuot'; did you mean --layout\\?\n$" parse --layuot discord 1)
expect_bad(option_typo_short "gen: unknown option '-m3'; see 'flakeid gen --help'\n$" gen -m3)
expect_bad(command_typo ": unknown command 'pasre'; did you mean parse\\?\n$" pasre 1)
expect_bad(help_typo "unknown command 'gne'; did you mean gen\\?" help gne)
expect_bad(flag_with_value "option '--pad' takes no value" encode --to radix62 --pad=yes 1)
# -q silences gen's note saying where the worker id came from.
execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_WORKER_ID=9 "${CLI}" -q gen --layout sonyflake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "" OR NOT out MATCHES "^[0-9]+\n$")
  failed(gen_quiet "-q gen: exit ${rc}, stderr '${err}'")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_WORKER_ID=9 "${CLI}" gen --layout sonyflake --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  failed(gen_quiet_after "gen --quiet: exit ${rc}, stderr '${err}'")
endif()
# help never recurses: --help --help, help help, help -h.
run(--help --help)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: flakeid <command>")
  failed(help_help_flag "--help --help: exit ${rc}\n${out}${err}")
endif()
foreach(args IN ITEMS "help;help" "help;-h" "help;--help")
  run(${args})
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: flakeid help \\[COMMAND\\]\n")
    failed(help_of_help "${args}: exit ${rc}\n${out}${err}")
  endif()
endforeach()
run(help)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: flakeid <command>")
  failed(help_plain "help: exit ${rc}\n${out}${err}")
endif()
run(parse --help --help)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^usage: flakeid parse")
  failed(parse_help_twice "parse --help --help: exit ${rc}\n${out}${err}")
endif()
run(version)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^flakeid [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  failed(version_command "version: ${out}")
endif()
expect_bad(version_operand "version: unexpected argument 'x'" version x)
# gen's help says what happens without --worker: never "else it is 0".
run(gen --help)
if(NOT out MATCHES "FLAKEID_WORKER_ID, else from a host-wide file lease" OR NOT out MATCHES "never\n +falls back to a fixed id"
   OR out MATCHES "else it is 0")
  failed(gen_help_worker "gen --help:\n${out}")
endif()
# A full disk is an error (exit 1), never a silent success.
if(EXISTS /dev/full)
  foreach(args IN ITEMS "parse;1" "layouts" "gen;--generator;segment;--store;memory;-n;100000" "--help")
    execute_process(COMMAND "${CLI}" ${args} OUTPUT_FILE /dev/full
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 1 OR NOT err MATCHES "^flakeid[^\n]*: cannot write to standard output: No space left on device\n$")
      failed(write_error "${args} > /dev/full: exit ${rc}, stderr '${err}'")
    endif()
  endforeach()
endif()
# Every message starts "flakeid <command>:" and names no C++ internals.
foreach(args IN ITEMS "parse;--layout;ts:99" "gen;--worker;99999" "range;2024-01-02;2024-01-01"
                      "sql;shards;--table;t;--shards;3" "decode;--from;friendly;2024-1"
                      "bench;--threads;0")
  run(${args})
  list(GET args 0 command)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "^flakeid ${command}: [^\n]+\n$" OR err MATCHES "std::|_error|basic_|::")
    failed(message_prefix "${args}: exit ${rc}, stderr '${err}'")
  endif()
endforeach()

# ---- bad input: one line on stderr, exit 2 -------------------------------------------------------
expect_bad(no_command "give a command")
expect_bad(unknown_command "unknown command 'bogus'" bogus)
expect_bad(unknown_option "parse: unknown option '--bogus'; see 'flakeid parse --help'" parse --bogus 1)
expect_bad(option_twice "option '--layout' is given twice" parse --layout twitter --layout discord 1)
expect_bad(option_without_value "option '--layout' needs a value" parse 1 --layout)
# Without IDs, parse reads standard input (a terminal is asked for IDs instead): none there is
# nothing to print.
file(WRITE "${scratch}/empty" "")
run_in("${scratch}/empty" parse)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "" OR NOT err STREQUAL "")
  failed(parse_nothing "parse < empty: exit ${rc}, stdout '${out}', stderr '${err}'")
endif()
expect_bad(parse_bad_radix62 "radix62 text \"zz!\" has '!' at index 2" parse zz!)
expect_bad(parse_bad_layout "unknown; known: twitter, discord" parse 1 --layout twiter)
expect_bad(parse_bad_spec "invalid layout spec" parse 1 --layout "ts:41,seq:12")
expect_bad(parse_reserved_bit "sets reserved bits" parse 18446744073709551615)
expect_bad(parse_bad_format "format 'xml' is unknown" parse 1 --format xml)
expect_bad(parse_bad_input "--input 'hex' is not a text form" parse 1 --input hex)
expect_bad(parse_decimal_overflow "ID '18446744073709551616' is not a decimal number" parse 18446744073709551616)
expect_bad(parse_bad_friendly "friendly ID" parse 2016-04-30 --layout discord)
expect_bad(range_one_time "give two times" range 2024-01-01)
expect_bad(range_bad_time "TO '2024-13-01' is neither a UTC time" range 2024-01-01 2024-13-01)
expect_bad(range_reversed "needs from <= to" range 2024-01-02 2024-01-01)
expect_bad(range_before_epoch "outside the layout's range" range 2000-01-01 2000-01-02)
expect_bad(encode_no_form "give the form with --to" encode 1)
expect_bad(encode_bad_form "--to 'hex' is not a text form" encode --to hex 1)
expect_bad(encode_not_decimal "ID 'abc' is not a decimal number" encode --to radix62 abc)
expect_bad(decode_bad_base32 "Crockford base32 text \"0000000000U00\" has 'U'" decode 0000000000U00 --from base32)
expect_bad(gen_custom_layout "is not a preset; generators take their layout at compile time"
           gen --layout ts:41,worker:9,seq:13)
# A spec equal to a preset mints as that preset: NewLife's 41/10/12 from 1970.
run(gen --layout ts:41,worker:10,seq:12 --worker 3 -q)
if(NOT rc EQUAL 0 OR NOT out MATCHES "^[0-9]+\n$")
  failed(gen_spec_of_a_preset "exit ${rc}\n${out}${err}")
endif()
expect_bad(gen_zero "-n 0 asks for no IDs" gen -n 0 --worker 1)
expect_bad(gen_bad_count "-n 'many' is not a decimal number" gen -n many)
expect_bad(gen_negative_count " gen: -n '-3' is not a decimal number in \\[1, 1000000000\\]\n$" gen -n -3)
expect_bad(gen_bad_generator "generator 'fast' is unknown" gen --generator fast)
expect_bad(gen_worker_too_large "worker 32 is out of range \\[0, 31\\] for a 5-bit field" gen --worker 32)
expect_bad(gen_no_datacenter "datacenter 1 is out of range \\[0, 0\\]: the layout has no datacenter field"
           gen --layout cosid --worker 1 --datacenter 1)
expect_bad(gen_gene_without_field "has no gene field" gen --gene 3 --worker 1)
expect_bad(gen_gene_layout "the gene generator needs a layout whose lowest field is a gene"
           gen --generator gene --layout twitter --worker 1)
expect_bad(gen_operand "unexpected argument '5'" gen 5)
expect_bad(gen_segment_no_store "--generator segment needs --store memory\\|file\\|redis\\|postgres"
           gen --generator segment)
expect_bad(gen_segment_bad_store "store 'etcd' is unknown; allowed: memory, file, redis, postgres"
           gen --generator segment --store etcd)
expect_bad(gen_segment_step_zero "--step 0 reserves nothing" gen --generator segment --store memory --step 0)
expect_bad(gen_segment_step_too_large "--step '2147483649' is not a decimal number in \\[0, 2147483648\\]"
           gen --generator segment --store memory --step 2147483649)
expect_bad(gen_segment_start_zero "gen: segment option start = 0 is out of range \\[1, 9223372036854775807\\]"
           gen --generator segment --store memory --start 0)
expect_bad(gen_segment_stride_zero "gen: segment option stride = 0 is out of range \\[1, 65536\\]"
           gen --generator segment --store memory --stride 0)
expect_bad(gen_segment_stride_too_large "--stride '65537' is not a decimal number in \\[0, 65536\\]"
           gen --generator segment --store memory --stride 65537)
expect_bad(gen_segment_remainder_too_large "gen: segment option remainder = 2 is out of range \\[0, 1\\]"
           gen --generator segment --store memory --stride 2 --remainder 2)
expect_bad(gen_segment_remainder_without_stride "gen: segment option remainder = 1 is out of range \\[0, 0\\]"
           gen --generator segment --store memory --remainder 1)
expect_bad(gen_stride_not_segment "option '--stride' applies only to --generator segment"
           gen --stride 2)
expect_bad(gen_segment_worker "option '--worker' does not apply to --generator segment"
           gen --generator segment --store memory --worker 1)
expect_bad(gen_segment_friendly "--to friendly needs a snowflake layout"
           gen --generator segment --store memory --to friendly)
expect_bad(gen_segment_redis_address "--redis applies only to --store redis"
           gen --generator segment --store memory --redis 127.0.0.1:6379)
expect_bad(gen_store_without_segment "option '--store' applies only to --generator segment"
           gen --store memory --worker 1)
expect_bad(gen_segment_bad_store_uri "store 'etcd://u:\\*\\*\\*@cache' is unknown"
           gen --generator segment --store etcd://u:S3cr3t-cli@cache)

# ---- gen --store <URI>: where the server is, and no password in any message ---------------------
# expect_no_secret(<name> <exit code> <stderr regex> <env assignment or ""> <args>...): exits
# with the code, one line on stderr matching the regex, and no "S3cr3t-cli" or "S3cr%ZZcli" in it.
function(expect_no_secret name code regex env)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID ${env} "${CLI}" ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "S3cr3t-cli" plain)
  string(FIND "${err}" "S3cr%ZZcli" escaped)
  if(NOT rc EQUAL code OR NOT out STREQUAL "" OR NOT err MATCHES "^flakeid[^\n]*${regex}"
     OR NOT plain EQUAL -1 OR NOT escaped EQUAL -1)
    failed(${name} "flakeid ${ARGN}\n  exit ${rc} (expected ${code})\n  stdout: ${out}\n  stderr: ${err}  expected to match: ${regex}, without the password")
  endif()
  set(failures ${failures} PARENT_SCOPE)
endfunction()

if(CLI_REDIS)
  expect_no_secret(gen_redis_uri_ipv6 2
                   "invalid Redis address 'redis://:\\*\\*\\*@::1:6379': an IPv6 address must be written in brackets" ""
                   gen --generator segment --store redis://:S3cr3t-cli@::1:6379)
  expect_no_secret(gen_redis_uri_refused 1
                   "cannot connect to redis 127.0.0.1:1 user u db 3 within 2000 ms: " ""
                   gen --generator segment --store redis://u:S3cr3t-cli@127.0.0.1:1/3)
  expect_no_secret(gen_redis_url_env_refused 1
                   "cannot connect to redis 127.0.0.1:1 user u db 4 within 2000 ms: "
                   "FLAKEID_REDIS_URL=redis://u:S3cr3t-cli@127.0.0.1:1/4"
                   gen --generator segment --store redis)
  expect_no_secret(gen_redis_option_uri_refused 1
                   "cannot connect to redis 127.0.0.1:1 tls user u within 2000 ms: " ""
                   gen --generator segment --store redis --redis rediss://u:S3cr3t-cli@127.0.0.1:1)
  expect_no_secret(gen_redis_uri_and_option 2 "already says where the server is" ""
                   gen --generator segment --store redis://u:S3cr3t-cli@127.0.0.1:1
                   --redis 127.0.0.1:2)
endif()
if(CLI_POSTGRES)
  expect_no_secret(gen_postgres_uri_malformed 2
                   "invalid PostgreSQL connection string: invalid percent-encoded token: \"\\*\\*\\*\"" ""
                   gen --generator segment --store postgresql://u:S3cr%ZZcli@127.0.0.1:1/app)
  expect_no_secret(gen_postgres_uri_refused 1
                   "cannot connect to postgresql 127.0.0.1:1 user u db app within 2000 ms: " ""
                   gen --generator segment --store postgresql://u:S3cr3t-cli@127.0.0.1:1/app)
endif()

file(REMOVE_RECURSE "${scratch}")
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} CLI check(s) failed")
endif()
message(STATUS "every CLI check passed")
