# Reading IDs: parse, text forms, encode and decode, range, records, times, parse --bits.
# Included by cli_test.cmake with -DPART=ids.

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
# CosId's converter settings: prefix, suffix, padding and width, and back.
expect_out(encode_order_number "ORD-0000123\nORD-18446744073709551615\n"
           encode --to decimal --pad --width 7 --prefix ORD- 123 18446744073709551615)
expect_out(decode_order_number "123\n123\n" decode --from decimal --prefix ORD- ORD-0000123 ORD-123)
expect_out(encode_decimal_pad "00000000005\n" encode --to decimal --pad 5)
expect_out(encode_decimal "5\n" encode --to decimal 5)
expect_out(encode_radix62_narrow "z\nzz\n" encode --to radix62 --width 2 61 3843)
expect_out(encode_radix62_narrow_pad "0z-v1\n" encode --to radix62 --width 2 --pad --suffix -v1 61)
expect_out(decode_radix36_suffix "46655\n" decode --from radix36 --width 3 --suffix -v1 ZZZ-v1)
expect_bad(encode_radix62_too_wide_id "encode: ID 3844 does not fit 2 radix62 characters; at most 3843\n$"
           encode --to radix62 --width 2 3844)
expect_bad(encode_prefix_base32 "encode: --prefix, --suffix and --width apply to radix62, radix36 and decimal, not base32\n$"
           encode --to base32 --prefix X 1)
expect_bad(decode_prefix_no_form "decode: --prefix, --suffix and --width need --from radix62, radix36 or decimal\n$"
           decode --prefix X X1)
expect_bad(encode_width_past_radix62 "encode: text converter width 12 is out of range \\[1, 11\\] for radix62\n$"
           encode --to radix62 --width 12 1)
expect_bad(decode_other_prefix "decode: text \"INV-1\" does not start with the prefix \"ORD-\"\n$"
           decode --from decimal --prefix ORD- INV-1)

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
