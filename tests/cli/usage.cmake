# Usage: help, version, getopt habits, bad input, and --store URIs with no password shown.
# Included by cli_test.cmake with -DPART=usage.

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
