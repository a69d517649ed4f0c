// SPDX-License-Identifier: MIT
// Copyright (c) 2026 The flakeid authors
#pragma once
/// \file layouts.hpp
/// Ready-made layouts in `flakeid::layouts`, each with the epoch, tick and field order of the
/// system it is named after (fields most significant first).
///
/// | preset          | fields (high to low)                         | tick  | epoch (UTC)              |
/// |-----------------|----------------------------------------------|-------|--------------------------|
/// | twitter         | [sign] ts 41, dc 5, worker 5, seq 12         | 1 ms  | 2010-11-04 01:42:54.657  |
/// | discord         | ts 42, worker 5, process(dc) 5, seq 12       | 1 ms  | 2015-01-01               |
/// | sonyflake       | [sign] ts 39, seq 8, machine(worker) 16      | 10 ms | 2014-09-01               |
/// | sonyflake_v2    | [sign] ts 39, seq 8, machine(worker) 16      | 10 ms | 2025-01-01               |
/// | instagram       | ts 41, shard(worker) 13, seq 10              | 1 ms  | 2011-08-24 21:07:01.721  |
/// | mastodon        | ts 48 (Unix ms), seq 16                      | 1 ms  | 1970-01-01               |
/// | cosid           | [sign] ts 41, machine(worker) 10, seq 12     | 1 ms  | 2019-12-24 16:00 (+08 midnight) |
/// | cosid_seconds   | [sign] ts 31, machine(worker) 10, seq 22     | 1 s   | 2019-12-24 16:00         |
/// | cosid_js        | reserved 11, ts 41, machine(worker) 3, seq 9 | 1 ms  | 2019-12-24 16:00         |
/// | baidu           | [sign] ts 28, worker 22, seq 13              | 1 s   | 2016-05-20 (+08 midnight) |
/// | seed_classic    | [sign] ts 41, dc 5, worker 5, seq 12         | 1 ms  | 2014-12-31 16:00         |
/// | seed_gene       | [sign] ts 41, dc 5, worker 5, seq 7, gene 5  | 1 ms  | 2024-08-24 13:16:04      |
/// | newlife         | [sign] ts 41, worker 10, seq 12              | 1 ms  | 1970-01-01 (local time)  |

#include <chrono>

#include "layout.hpp"
#include "version.hpp"

namespace flakeid {
inline namespace FLAKEID_ABI_NAMESPACE {
namespace layouts {

using namespace std::chrono_literals;

/// Twitter's snowflake (twitter-archive/snowflake, IdWorker.scala: twepoch = 1288834974657L,
/// workerIdBits = 5, datacenterIdBits = 5, sequenceBits = 12).
inline constexpr layout twitter{
    {fields::timestamp(41), fields::datacenter(5), fields::worker(5), fields::sequence(12)},
    1288834974657};

/// Discord (discord.com developers docs, Reference, "Snowflakes": DISCORD_EPOCH 1420070400000;
/// bits 63-22 timestamp, 21-17 internal worker id, 16-12 internal process id, 11-0 increment).
/// The process id is held in the `datacenter` field.
inline constexpr layout discord{
    {fields::timestamp(42), fields::worker(5), fields::datacenter(5), fields::sequence(12)},
    1420070400000};

/// Sonyflake v1 (sony/sonyflake README: 39 bits of 10 ms units since 2014-09-01 00:00:00 UTC,
/// 8 bits sequence, 16 bits machine id in the lowest bits). Sonyflake floors a custom start
/// time to its 10 ms unit; a custom layout that mirrors one must do the same with its epoch.
inline constexpr layout sonyflake{
    {fields::timestamp(39), fields::sequence(8), fields::worker(16)}, 1409529600000, 10ms};

/// Sonyflake v2 (sony/sonyflake v2 README: the default start time moved to 2025-01-01 UTC; the
/// default widths stay 39/8/16 with a 10 ms unit).
inline constexpr layout sonyflake_v2{
    {fields::timestamp(39), fields::sequence(8), fields::worker(16)}, 1735689600000, 10ms};

/// Instagram (Instagram Engineering, "Sharding & IDs at Instagram": 41 bits of ms, 13 bits of
/// logical shard id, 10 bits of sequence; the epoch 1314220021721 is the one in their
/// published `next_id` PL/pgSQL function). The shard is held in the `worker` field.
inline constexpr layout instagram{{fields::timestamp(41), fields::worker(13), fields::sequence(10)},
                                  1314220021721};

/// Mastodon (mastodon/mastodon lib/mastodon/snowflake.rb: 48 bits of Unix milliseconds, then 16
/// bits of sequence).
inline constexpr layout mastodon{{fields::timestamp(48), fields::sequence(16)}, 0};

/// CosId MillisecondSnowflakeId (Ahoo-Wang/CosId CosId.COSID_EPOCH = 1577203200000, i.e.
/// 2019-12-25 00:00 at UTC+8; 41 bits ms, 10 bits machine, 12 bits sequence).
inline constexpr layout cosid{{fields::timestamp(41), fields::worker(10), fields::sequence(12)},
                              1577203200000};

/// CosId SecondSnowflakeId (31 bits of seconds since COSID_EPOCH, 10 machine, 22 sequence).
inline constexpr layout cosid_seconds{
    {fields::timestamp(31), fields::worker(10), fields::sequence(22)}, 1577203200000, 1s};

/// CosId SafeJavaScriptSnowflakeId (41 bits ms, 3 machine, 9 sequence: 53 bits in all, so every
/// ID is below 2^53 and exact as a JavaScript number). The 11 high bits are reserved.
/// The epoch is COSID_EPOCH in milliseconds, which CosId's millisecond generators count from
/// since version 3.2.1. (Before it, the `ofMillisecond` factory passed the epoch in seconds,
/// 1577203200, so those IDs count from 1970-01-19: read them with a layout of epoch
/// 1577203200.)
inline constexpr layout cosid_js{
    {fields::reserved(11), fields::timestamp(41), fields::worker(3), fields::sequence(9)},
    1577203200000};

/// Baidu uid-generator DefaultUidGenerator (baidu/uid-generator: timeBits 28 of seconds since
/// epochStr "2016-05-20", workerBits 22, seqBits 13). The epoch is that day's midnight at UTC+8,
/// as the library parses it in the JVM's zone on its authors' servers.
inline constexpr layout baidu{
    {fields::timestamp(28), fields::worker(22), fields::sequence(13)}, 1463673600000, 1s};

/// The classic layout of the sharding article this library's gene generator comes from:
/// 41/5/5/12 with epoch 1420041600000 (2015-01-01 00:00 at UTC+8).
inline constexpr layout seed_classic{
    {fields::timestamp(41), fields::datacenter(5), fields::worker(5), fields::sequence(12)},
    1420041600000};

/// The gene-embedding layout of that article: 41 ts, 5 datacenter, 5 worker, 7 sequence and a
/// 5-bit gene in the lowest bits (32 shards), epoch 1724505364000.
inline constexpr layout seed_gene{{fields::timestamp(41), fields::datacenter(5), fields::worker(5),
                                   fields::sequence(7), fields::gene(5)},
                                  1724505364000};

/// NewLife.Core's `Snowflake` (NewLifeX/X NewLife.Core/Data/Snowflake.cs: 1 reserved bit, 41
/// bits of milliseconds, 10 bits of worker id, 12 bits of sequence, `StartTimestamp` 1970-01-01).
/// NewLife counts `DateTime.Now - StartTimestamp`, the server's local time: this preset reads
/// IDs minted at UTC; on a server west of UTC use a layout with epoch = the UTC offset in ms
/// (IDs minted east of UTC decode that far ahead). Its sequence never resets (`never_reset`).
inline constexpr layout newlife{{fields::timestamp(41), fields::worker(10), fields::sequence(12)},
                                0};

}  // namespace layouts
}  // namespace FLAKEID_ABI_NAMESPACE
}  // namespace flakeid
