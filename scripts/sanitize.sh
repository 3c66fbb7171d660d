#!/usr/bin/env bash
# Builds the whole project under a sanitizer and runs every test with CTest, the studio's
# included (offscreen), then counts the sanitizer reports. docs/sanitizers.md says what each
# covers and what the suppression files hold.
#
# Usage: scripts/sanitize.sh asan|tsan|all [extra ctest arguments, e.g. -R studio]
#   asan: AddressSanitizer + UndefinedBehaviorSanitizer (preset asan, build/asan)
#   tsan: ThreadSanitizer (preset tsan, build/tsan)
# Every report, from a test or from a doppler process a test starts, is written to
# build/<preset>/sanitizer-reports/ (log_path), so none is lost in a child's stderr; the script
# exits 1 when a test failed or any report was written.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
shift || true
case "$which" in
  asan) presets=(asan) ;;
  tsan) presets=(tsan) ;;
  all) presets=(asan tsan) ;;
  *) echo "usage: scripts/sanitize.sh asan|tsan|all [ctest arguments]" >&2; exit 2 ;;
esac
scripts/install-deps.sh
root="$PWD"
status=0
for preset in "${presets[@]}"; do
  scripts/build.sh "$preset"
  reports="$root/build/$preset/sanitizer-reports"
  rm -rf "$reports"
  mkdir -p "$reports"
  # halt_on_error: the first report fails the test that caused it (its process exits non-zero).
  # One log_path for ASan and UBSan: in one binary they share it (the last one read wins).
  export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$reports/report"
  export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/report"
  # ignore_noninstrumented_modules: a memmove or free that Qt (built without TSan) calls on its own
  # memory between its own threads is Qt's business (QImage conversion on Qt's pool, QtTest's
  # watchdog), and TSan cannot see the synchronisation that orders them; our code's accesses are
  # all instrumented and still checked. die_after_fork=0: QProcess's child starts a thread before
  # it execs the instrumented doppler, which then runs under TSan as a process of its own.
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:die_after_fork=0:log_path=$reports/report:suppressions=$root/scripts/sanitizers/tsan.supp"
  set +e
  # Each test's own limit is larger in these builds (tests/CMakeLists.txt, DOPPLER_TEST_TIMEOUT).
  (cd "build/$preset" && ctest --output-on-failure -j2 "$@")
  tests=$?
  set -e
  count=$(find "$reports" -type f | wc -l)
  # And any report a process printed instead (a runtime that did not take log_path): counted from
  # the tests' output, which CTest keeps.
  printed=$(grep -cE "runtime error:|ERROR: (Address|Leak)Sanitizer|WARNING: ThreadSanitizer" \
    "build/$preset/Testing/Temporary/LastTest.log" || true)
  count=$((count + printed))
  echo "== $preset: ctest exit $tests, $count sanitizer report(s) ($printed printed in the tests' output, the rest in $reports)"
  if ((count > 0)); then
    for f in "$reports"/*; do
      echo "-- $f"
      head -40 "$f"
    done
  fi
  if ((tests != 0 || count > 0)); then status=1; fi
done
exit $status
