# Minting: gen with every generator, and its segments.
# Included by cli_test.cmake with -DPART=gen.

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
  check_out(${name} "${expected}" gen --generator segment --store file ${ARGN})
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
# A relative directory is another one in each working directory: two runs from two directories
# handed out the same numbers (XDG_STATE_HOME=state: 2 runs x 1,000, 1,000 repeated). A relative
# FLAKEID_SEGMENT_DIR is bad input (exit 2); a relative XDG_STATE_HOME is ignored, as the XDG
# specification says, for $HOME/.local/state.
set(rel_home "${CMAKE_CURRENT_BINARY_DIR}/cli-home-${tag}")
set(rel_cwd "${CMAKE_CURRENT_BINARY_DIR}/cli-cwd-${tag}")
file(MAKE_DIRECTORY "${rel_home}" "${rel_cwd}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_SEGMENT_DIR=ids "${CLI}" gen --generator segment
                        --store file -n 2
                WORKING_DIRECTORY "${rel_cwd}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR EXISTS "${rel_cwd}/ids" OR NOT err STREQUAL "flakeid gen: FLAKEID_SEGMENT_DIR 'ids' is a relative path, another directory in each working directory, where a run elsewhere would hand out the same numbers again; give an absolute path\n")
  failed(gen_segment_relative_dir_refused "exit ${rc}, stdout '${out}', stderr '${err}'")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_SEGMENT_DIR XDG_STATE_HOME=state
                        HOME=${rel_home} "${CLI}" gen --generator segment --store file -n 2
                WORKING_DIRECTORY "${rel_cwd}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "1\n2\n" OR EXISTS "${rel_cwd}/state"
   OR NOT EXISTS "${rel_home}/.local/state/flakeid/segments/default.segment")
  failed(gen_segment_relative_xdg_state_home_ignored "exit ${rc}, stdout '${out}', stderr '${err}'")
endif()
file(REMOVE_RECURSE "${rel_home}" "${rel_cwd}")

# ---- gen --config FILE --name NAME (a registry configuration, docs/registry.md) ---------------
if(CLI_REGISTRY)
  set(reg "${scratch}/registry")
  file(MAKE_DIRECTORY "${reg}/ids")
  file(WRITE "${reg}/ids.json" "{\"generators\": {
    \"inv\": {\"kind\": \"segment\", \"store\": \"file://${reg}/ids\", \"key\": \"invoice\",
             \"step\": 3, \"text\": {\"form\": \"decimal\", \"pad\": true, \"width\": 7,
                                  \"prefix\": \"INV-\"}},
    \"fixed\": {\"kind\": \"snowflake\", \"worker\": 5}}}")
  # A plain segment generator on the file store: this run reserves 1-3, the next one 4-6.
  expect_out(gen_config_first "INV-0000001\nINV-0000002\n" gen --config ${reg}/ids.json --name inv -n 2)
  expect_out(gen_config_second "INV-0000004\n" gen --config ${reg}/ids.json --name inv)
  expect_match(gen_config_json "^\\{\"id\":\"([0-9]+)\",\"text\":\"[0-9]+\"\\}\n$"
               gen --config ${reg}/ids.json --name fixed --format json)
  run(gen --config ${reg}/ids.json --name fixed -n 2)
  string(REGEX MATCHALL "[0-9]+" two "${out}")
  list(LENGTH two n_ids)
  if(NOT rc EQUAL 0 OR NOT n_ids EQUAL 2)
    failed(gen_config_fixed "exit ${rc}\n${out}${err}")
  else()
    list(GET two 0 first)
    run(parse ${first} --layout twitter --format json)
    if(NOT out MATCHES "\"worker\":5[,}]")
      failed(gen_config_fixed_worker "parse ${first}: ${out}${err}")
    endif()
  endif()
  expect_bad(gen_config_unknown_name
             "registry entry 'nope': no such generator \\(have: fixed, inv\\)\n$"
             gen --config ${reg}/ids.json --name nope)
  expect_bad(gen_config_without_name "--config FILE and --name NAME go together\n$"
             gen --config ${reg}/ids.json)
  expect_bad(gen_config_with_layout
             "option '--layout' does not apply with --config: the entry says how it mints and writes\n$"
             gen --config ${reg}/ids.json --name fixed --layout twitter)
  file(WRITE "${reg}/typo.json" "{\"generators\": {\"x\": {\"kind\": \"snowflake\", \"wroker\": 1}}}")
  expect_bad(gen_config_typo
             "registry entry 'x', field 'wroker': unknown field \\(allowed: kind, text, layout, worker, datacenter, lease\\)\n$"
             gen --config ${reg}/typo.json --name x)
  expect_bad(gen_config_missing "registry: cannot read ${reg}/none.json \\(No such file or directory\\)\n$"
             gen --config ${reg}/none.json --name x)
endif()
