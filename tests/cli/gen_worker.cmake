# gen's default worker id: a host-local file lease, and what it says while it waits.
# Included by cli_test.cmake with -DPART=gen_worker.

# gen_in(<lease directory>): `flakeid gen` with no worker id, leasing one in that directory
# (namespace clitest).
macro(gen_in dir)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=${dir}
                          FLAKEID_LEASE_NAMESPACE=clitest "${CLI}" gen
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endmacro()

# Without --worker or FLAKEID_WORKER_ID, gen takes a host-local file lease: two runs at once
# hold two different ids; when no id can be leased it fails (exit 1) and never falls back to a
# fixed worker.
string(RANDOM LENGTH 10 tag)
set(lease_dir "${CMAKE_CURRENT_BINARY_DIR}/cli-leases-${tag}")
file(MAKE_DIRECTORY "${lease_dir}")
gen_in(${lease_dir})
if(NOT rc EQUAL 0 OR NOT err STREQUAL "flakeid gen: worker 0 from lease file lease ${lease_dir} namespace clitest id 0\n")
  failed(gen_default_lease "no worker: exit ${rc}, stderr '${err}'")
endif()
gen_in(${lease_dir})
if(NOT rc EQUAL 0 OR NOT err STREQUAL "flakeid gen: worker 1 from lease file lease ${lease_dir} namespace clitest id 1\n")
  failed(gen_default_lease_guarded "id 0 is in its safe-guard period: exit ${rc}, stderr '${err}'")
endif()
file(REMOVE_RECURSE "${lease_dir}")
# A claim in a directory others may write (as /dev/shm/flakeid after a reboot) waits ttl +
# safe_guard before it mints: gen says so on stderr before the wait, with how long and why.
set(shared_dir "${CMAKE_CURRENT_BINARY_DIR}/cli-shared-leases-${tag}")
file(MAKE_DIRECTORY "${shared_dir}")
execute_process(COMMAND chmod 1777 "${shared_dir}")
gen_in(${shared_dir})
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
# A leased id is a node number over the datacenter and worker fields (lease 32 of twitter is
# datacenter 1, worker 0), so --datacenter on a leased id gave two runs holding ids 0 and 32 the
# same node (2 runs of 1,000,000 IDs with --datacenter 3: 36,864 duplicates). gen refuses it,
# before it takes a lease; with a fixed worker (FLAKEID_WORKER_ID) the datacenter is the user's.
set(dc_dir "${CMAKE_CURRENT_BINARY_DIR}/cli-dc-leases-${tag}")
file(MAKE_DIRECTORY "${dc_dir}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=${dc_dir}
                        FLAKEID_LEASE_NAMESPACE=clitest "${CLI}" gen --datacenter 3
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(GLOB dc_files "${dc_dir}/*")
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR NOT dc_files STREQUAL "" OR NOT err STREQUAL "flakeid gen: --datacenter applies only to a fixed worker id (--worker or FLAKEID_WORKER_ID): a leased id takes its datacenter from the lease\n")
  failed(gen_datacenter_with_a_lease_refused "exit ${rc}, stdout '${out}', stderr '${err}', files '${dc_files}'")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env FLAKEID_WORKER_ID=7 "${CLI}" gen -q --datacenter 3
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(STRIP "${out}" out)
execute_process(COMMAND "${CLI}" parse --layout twitter "${out}" OUTPUT_VARIABLE parsed)
if(NOT rc EQUAL 0 OR NOT parsed MATCHES " datacenter=3 worker=7 ")
  failed(gen_datacenter_with_an_env_worker "exit ${rc}, stderr '${err}', parsed '${parsed}'")
endif()
file(REMOVE_RECURSE "${dc_dir}")
# A relative FLAKEID_LEASE_DIR is another directory in each working directory: two runs from two
# directories each leased id 0 (2 runs x 1,000,000 IDs: 57,344 duplicates). It is bad input
# (exit 2), refused before a lease is taken.
set(rel_cwd "${CMAKE_CURRENT_BINARY_DIR}/cli-lease-cwd-${tag}")
file(MAKE_DIRECTORY "${rel_cwd}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=leases
                        "${CLI}" gen
                WORKING_DIRECTORY "${rel_cwd}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT out STREQUAL "" OR EXISTS "${rel_cwd}/leases" OR NOT err STREQUAL "flakeid gen: FLAKEID_LEASE_DIR 'leases' is a relative path, another directory in each working directory, where a run elsewhere could lease the same id; give an absolute path\n")
  failed(gen_relative_lease_dir_refused "exit ${rc}, stdout '${out}', stderr '${err}'")
endif()
file(REMOVE_RECURSE "${rel_cwd}")
# The default directory, /dev/shm/flakeid, is host-wide only in the host's IPC namespace: a
# container with one of its own (Docker's and Kubernetes' default) has a /dev/shm of its own, and
# two such containers each leased id 0 (2 containers x 1,000,000 IDs: 114,688 duplicates). gen
# refuses the default there (exit 1, nothing minted); a directory named in FLAKEID_LEASE_DIR is
# the user's word that every container sees it. Run where `unshare` may make an IPC and a mount
# namespace (as root, or with user namespaces).
execute_process(COMMAND unshare --ipc --mount true RESULT_VARIABLE can_unshare OUTPUT_QUIET ERROR_QUIET)
set(as_container unshare --ipc --mount)
if(NOT can_unshare EQUAL 0)
  execute_process(COMMAND unshare --user --map-root-user --ipc --mount true
                  RESULT_VARIABLE can_unshare OUTPUT_QUIET ERROR_QUIET)
  set(as_container unshare --user --map-root-user --ipc --mount)
endif()
if(can_unshare EQUAL 0)
  execute_process(COMMAND ${as_container} env -u FLAKEID_WORKER_ID -u FLAKEID_LEASE_DIR
                          sh -c "mount -t tmpfs shm /dev/shm && exec \"$0\" gen" "${CLI}"
                  COMMAND_ECHO NONE RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 1 OR NOT out STREQUAL "" OR NOT err MATCHES "^flakeid gen: no worker id could be leased: this process has an IPC namespace of its own \\(ipc:\\[[0-9]+\\]: a container's\\), so /dev/shm/flakeid may be this container's alone and another container could lease the same id: set FLAKEID_LEASE_DIR to a directory mounted into every container that mints \\(FLAKEID_LEASE_DIR=/dev/shm/flakeid takes this one as it is\\); pass --worker W \\(or set FLAKEID_WORKER_ID\\) to use a fixed id\n$")
    failed(gen_default_lease_refused_in_a_container "exit ${rc}, stdout '${out}', stderr '${err}'")
  endif()
  set(named_dir "${CMAKE_CURRENT_BINARY_DIR}/cli-named-leases-${tag}")
  file(MAKE_DIRECTORY "${named_dir}")
  execute_process(COMMAND ${as_container} env -u FLAKEID_WORKER_ID FLAKEID_LEASE_DIR=${named_dir}
                          "${CLI}" gen -q
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^[0-9]+\n$")
    failed(gen_named_lease_dir_in_a_container "exit ${rc}, stdout '${out}', stderr '${err}'")
  endif()
  file(REMOVE_RECURSE "${named_dir}")
endif()
