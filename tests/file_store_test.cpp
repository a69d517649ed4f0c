// The file store's lease directory against what happens to it from outside, with real
// processes: the directory deleted or moved while holders run, another file renamed in place of
// a held one, and another local user who deletes and rewrites the files it may.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <flakeid/store/file.hpp>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "adapters/expect_error.hpp"
#include "adapters/lease_support.hpp"
#include "adapters/server_support.hpp"
#include "fork_child.hpp"

namespace {

using namespace flakeid_test;

/// A lease directory every user may reach: `<parent>/leases`, mode 1777, under a parent of
/// mode 0755 (both root's when the test runs as root).
struct shared_dir {
  std::string parent = make_temp_dir("flakeid-shared");
  std::string dir = parent + "/leases";
  shared_dir() {
    (void)::chmod(parent.c_str(), 0755);
    (void)::mkdir(dir.c_str(), 01777);
    (void)::chmod(dir.c_str(), 01777);
  }
  shared_dir(const shared_dir&) = delete;
  shared_dir& operator=(const shared_dir&) = delete;
  ~shared_dir() { std::filesystem::remove_all(parent); }
  std::unique_ptr<flakeid::lease> make(const flakeid::lease_options& o) const {
    return lease_from(flakeid::file_store{dir, store_options_of(o)}, o);
  }
};

/// A holder in its own process: takes an id of `o` (`count` to choose from) in `dir`, says the
/// id as one byte once it has minted 1,000 IDs, and mints into `file` (raw words, 16 per write,
/// about 16 per ms) until the lease is lost (exit 0) or `finish` tells it to stop (exit 1);
/// exit 3 on any other error. Killed and reaped if the test ends first.
class holder_process {
 public:
  holder_process(const std::string& dir, const flakeid::lease_options& o, std::uint64_t count,
                 const std::string& file)
      : out_(::open(file.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)),
        child_([&](child_pipe ready) { return hold(dir, o, count, ready); }) {
    const std::string said = child_.read_exactly(1);
    if (said.size() == 1) id = static_cast<unsigned char>(said[0]);
  }
  holder_process(const holder_process&) = delete;
  holder_process& operator=(const holder_process&) = delete;
  ~holder_process() {
    child_.kill();
    if (out_ >= 0) ::close(out_);
  }

  int id = -1;  ///< the id it holds, -1 when it never started minting

  /// Waits up to `limit` for the holder to end on its own (the limit only ends a broken run),
  /// then tells it to stop; its exit code.
  int finish(std::chrono::milliseconds limit) {
    std::optional<int> status;
    const auto end = steady::now() + limit;
    while (!(status = child_.poll_exit())) {
      if (steady::now() > end) {
        stop_.open();
        status = child_.wait();
        break;
      }
      std::this_thread::sleep_for(5ms);
    }
    return WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
  }
  /// The IDs it minted.
  std::vector<std::uint64_t> ids() const {
    ::lseek(out_, 0, SEEK_SET);
    return read_ids(out_);
  }

 private:
  // In the child: the holder's run (above).
  int hold(const std::string& dir, const flakeid::lease_options& o, std::uint64_t count,
           child_pipe& ready) {
    if (out_ < 0) return 3;
    try {
      auto l = flakeid::file_store{dir, store_options_of(o)}.lease(o);
      const auto held_id = static_cast<unsigned char>(l.acquire(count));
      wall_gen gen{held(l)};
      for (std::uint64_t n = 0;; n += 16) {
        if (stop_.is_open()) return 1;
        std::uint64_t ids[16];
        try {
          for (std::uint64_t& i : ids) i = gen.next_id();
        } catch (const flakeid::lease_lost_error&) {
          if (l.lost()) return 0;
          std::this_thread::sleep_for(1ms);  // a renewal came late: it is confirmed again soon
          continue;
        }
        if (!write_all(out_, {reinterpret_cast<const char*>(ids), sizeof ids})) return 3;
        if (n == 1008) (void)ready.say_value(held_id);
        std::this_thread::sleep_for(1ms);
      }
    } catch (...) {
      return 3;
    }
  }

  int out_;
  gate stop_;
  child_process child_;
};

/// Claims an id below `count` for `o` in `d`, trying until one is had (null after 60 s).
std::unique_ptr<flakeid::lease> claim(const shared_dir& d, const flakeid::lease_options& o,
                                      std::uint64_t count) {
  const auto give_up = steady::now() + 60s;
  for (;;) {
    auto l = d.make(o);
    try {
      (void)l->acquire(count);
      return l;
    } catch (const flakeid::worker_id_error&) {
    }
    if (steady::now() > give_up) return nullptr;
    std::this_thread::sleep_for(20ms);
  }
}

/// A holder process mints on id 0 of a shared directory (of user `owner`); `forget(dir, o)`
/// takes the directory away, or the holder's file; a second holder claims id 0 and mints 20,000
/// IDs. No ID is minted twice, the first holder ends on the loss of its lease, and the second
/// mints above it.
void the_holders_file_goes_away(
    const std::function<void(const std::string&, const flakeid::lease_options&)>& forget,
    uid_t owner = ::geteuid()) {
  shared_dir d;
  ASSERT_EQ(::chown(d.dir.c_str(), owner, static_cast<gid_t>(-1)), 0) << d.dir;
  auto o = quick_options(unique_ns("gone"));
  o.max_ids = 1;
  o.max_wait = 30'000ms;
  holder_process first(d.dir, o, 1, d.parent + "/ids");
  ASSERT_EQ(first.id, 0) << "the first holder did not start minting";
  forget(d.dir, o);
  auto second = claim(d, o, 1);
  ASSERT_NE(second, nullptr);
  ASSERT_EQ(second->id(), 0U);
  std::vector<std::uint64_t> b_ids;
  {
    wall_gen gen{held(*second)};
    mint_through_late_renewals(gen, *second, 20'000, b_ids);
  }
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  EXPECT_EQ(first.finish(60s), 0) << "the first holder did not end on the loss of its lease";
  const std::vector<std::uint64_t> a_ids = first.ids();
  ASSERT_GE(a_ids.size(), 1024U);
  EXPECT_EQ(duplicates(a_ids, b_ids), 0U) << a_ids.size() << " and " << b_ids.size() << " IDs";
  EXPECT_LT(*std::max_element(a_ids.begin(), a_ids.end()), b_ids.front());
}

TEST(file_lease_directory_test, the_lease_directory_deleted_under_its_holder_causes_no_duplicate) {
  the_holders_file_goes_away([](const std::string& dir, const flakeid::lease_options&) {
    std::filesystem::remove_all(dir);
  });
}

TEST(file_lease_directory_test,
     the_lease_directory_moved_away_under_its_holder_causes_no_duplicate) {
  the_holders_file_goes_away([](const std::string& dir, const flakeid::lease_options&) {
    std::filesystem::rename(dir, dir + ".moved");  // the holder's file lives on there
  });
}

/// Runs `f` in a child process as user `nobody`; what it returned, or why it could not run.
std::string as_nobody(const std::function<std::string()>& f) {
  const passwd* pw = ::getpwnam("nobody");
  if (pw == nullptr) return "no user nobody";
  const uid_t uid = pw->pw_uid;
  const gid_t gid = pw->pw_gid;
  const auto as_user = [&]() -> std::string {
    if (::setresgid(gid, gid, gid) != 0 || ::setresuid(uid, uid, uid) != 0)
      return "cannot become nobody";
    try {
      return f();
    } catch (const std::exception& e) {
      return e.what();
    }
  };
  return run_in_forked_child(as_user).text;
}

/// The uid of user `nobody`.
uid_t nobody_uid() {
  const passwd* pw = ::getpwnam("nobody");
  return pw != nullptr ? pw->pw_uid : ::geteuid();
}

/// Renames `from` to `to` in `dir` as user `nobody`; "" when done.
std::string rename_as_nobody(const std::string& dir, const std::string& from,
                             const std::string& to) {
  return as_nobody([&]() -> std::string {
    if (::rename((dir + "/" + from).c_str(), (dir + "/" + to).c_str()) != 0)
      return "cannot rename " + from + " to " + to + ": " + std::strerror(errno);
    return "";
  });
}

// The owner of a shared directory (another user, whose process made `/dev/shm/flakeid` first)
// may rename every file in it: move a held lock file away and put another file of the holder's
// user in its place, one whose record reads as long settled.

TEST(file_lease_directory_test,
     the_directory_owner_renaming_the_marker_onto_a_held_lock_file_causes_no_duplicate) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a second user";
  the_holders_file_goes_away(
      [](const std::string& dir, const flakeid::lease_options& o) {
        const std::string lock = "flakeid-" + o.name_space + "-0.lease";
        EXPECT_EQ(rename_as_nobody(dir, lock, "away"), "");
        // The marker's count, 1, reads as a deadline in 1970.
        EXPECT_EQ(rename_as_nobody(dir, "flakeid-" + o.name_space + ".namespace", lock), "");
      },
      nobody_uid());
}

TEST(file_lease_directory_test,
     the_directory_owner_renaming_another_ids_file_onto_a_held_one_causes_no_duplicate) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a second user";
  the_holders_file_goes_away(
      [](const std::string& dir, const flakeid::lease_options& o) {
        {
          // Id 1, taken and let go on a clock an hour behind: its record is long settled.
          const auto behind = on_manual_clock(o, clock_at_wall(-1h));
          auto other = flakeid::file_store{dir, store_options_of(behind)}.lease(behind);
          ASSERT_EQ(other.acquire(2), 1U);  // id 0 is held
          other.release();
        }
        const std::string lock = "flakeid-" + o.name_space + "-0.lease";
        EXPECT_EQ(rename_as_nobody(dir, lock, "away"), "");
        EXPECT_EQ(rename_as_nobody(dir, "flakeid-" + o.name_space + "-1.lease", lock), "");
      },
      nobody_uid());
}

/// As `nobody`: rewrites every file of `dir` it may open for writing with a count of 0 (a
/// namespace marker's "no lock file made yet"), then deletes every lock file it may.
std::string tamper(const std::string& dir) {
  int counts[2][2] = {};  // [deleted, rewritten][own, another user's]
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0) continue;
    const int whose = st.st_uid == ::geteuid() ? 0 : 1;
    const int fd = ::open(e.path().c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      (void)!::write(fd, "                   0                    0\n", 42);
      ::close(fd);
      ++counts[1][whose];
    }
    if (e.path().extension() == ".lease" && ::unlink(e.path().c_str()) == 0) ++counts[0][whose];
  }
  return "deleted " + std::to_string(counts[0][0]) + " own and " + std::to_string(counts[0][1]) +
         " others' files, rewrote " + std::to_string(counts[1][0]) + " own and " +
         std::to_string(counts[1][1]) + " others'";
}

TEST(file_lease_directory_test, another_user_cannot_make_two_holders_share_an_id) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a second user";
  shared_dir d;
  auto o = quick_options(unique_ns("user"));
  o.max_wait = 30'000ms;
  // nobody takes id 0 and lets it go, on a clock an hour behind, so that id 0 is the first
  // settled one: its lock file, and the namespace's marker, are nobody's.
  EXPECT_EQ(as_nobody([&] {
              auto behind = o;
              behind = on_manual_clock(behind, clock_at_wall(-1h));
              auto l = flakeid::file_store{d.dir, store_options_of(behind)}.lease(behind);
              return "id " + std::to_string(l.acquire(2));
            }),
            "id 0");
  // A holder of root's takes an id: not nobody's file, whose maker could delete or rewrite it.
  holder_process first(d.dir, o, 2, d.parent + "/ids");
  EXPECT_EQ(first.id, 1) << "root's holder took a file another user may delete";
  // nobody deletes and rewrites what it can while root's holder runs.
  EXPECT_EQ(as_nobody([&] { return tamper(d.dir); }),
            "deleted 1 own and 0 others' files, rewrote 2 own and 0 others'");
  auto second = claim(d, o, 2);
  ASSERT_NE(second, nullptr);
  std::vector<std::uint64_t> b_ids;
  {
    wall_gen gen{held(*second)};
    mint_through_late_renewals(gen, *second, 20'000, b_ids);
  }
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  (void)first.finish(0ms);
  const std::vector<std::uint64_t> a_ids = first.ids();
  ASSERT_GE(a_ids.size(), 1024U);
  EXPECT_EQ(duplicates(a_ids, b_ids), 0U) << "ids " << first.id << " and " << second->id();
}

TEST(file_counter_directory_test, another_user_cannot_rewrite_a_counter_where_everyone_may_write) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run a second user";
  // A directory everyone may write, as a lease of the same file store makes it (mode 1777).
  // nobody made the counter file there first, writable by all, and set it back to 0 after a
  // run: the next run handed out the same numbers (before: 2 runs x 1,000, all 1,000
  // repeated). Now a counter there must be this user's plain file, which only it may write.
  shared_dir d;
  const flakeid::file_store store{d.dir};
  const std::string theirs = d.dir + "/orders.segment";
  const std::string link = d.dir + "/linked.segment";
  EXPECT_EQ(as_nobody([&]() -> std::string {
              ::umask(0);
              const int fd = ::open(theirs.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0666);
              if (fd < 0 || ::write(fd, "00000000000000000000\n", 21) != 21) return "not made";
              ::close(fd);
              return ::symlink(theirs.c_str(), link.c_str()) == 0 ? "made" : "no link";
            }),
            "made");
  flakeid::segment_generator<flakeid::file_distributor> gen{store.distributor("orders"), 100};
  flakeid_test::expect_error<flakeid::segment_store_error>(
      [&] { (void)gen.next_id(); },
      "flakeid: segment store file:" + d.dir + ", key 'orders': " + theirs +
          " is not a plain file of this user's that only this user may write (uid " +
          std::to_string(nobody_uid()) +
          ", mode 0666, links 1) in a directory everyone may write: another user could rewrite "
          "the counter and have its numbers handed out again; keep counters in a directory "
          "only their users may write");
  flakeid_test::expect_error<flakeid::segment_store_error>(
      [&] { (void)store.distributor("linked").next_max_id(1); },
      "flakeid: segment store file:" + d.dir + ", key 'linked': " + link +
          " is a symbolic link in a directory everyone may write: refusing to follow it");
  // This user's own counter there counts, and nobody cannot set it back.
  flakeid::segment_generator<flakeid::file_distributor> own{store.distributor("own"), 100};
  EXPECT_EQ(own.next_id(), 1U);
  EXPECT_EQ(as_nobody([&]() -> std::string {
              const int fd = ::open((d.dir + "/own.segment").c_str(), O_WRONLY);
              if (fd >= 0) ::close(fd);
              return fd < 0 ? std::strerror(errno) : "opened";
            }),
            std::strerror(EACCES));
  EXPECT_EQ(store.current("own"), 100U);
}

}  // namespace
