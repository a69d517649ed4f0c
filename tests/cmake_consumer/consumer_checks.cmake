# Shared by the consumer projects: builds the program against flakeid::flakeid and checks that
# flakeid brought none of its own tests, examples or tools into the consumer.
if(NOT TARGET flakeid::flakeid)
  message(FATAL_ERROR "flakeid::flakeid is not defined")
endif()
foreach(target IN ITEMS layout_test codec_test text_test example_decode_ids flakeid_cli)
  if(TARGET ${target})
    message(FATAL_ERROR "the consumer sees flakeid's own target ${target}")
  endif()
endforeach()

add_executable(consumer "${CMAKE_CURRENT_LIST_DIR}/main.cpp")
target_link_libraries(consumer PRIVATE flakeid::flakeid)
