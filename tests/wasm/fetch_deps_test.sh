#!/usr/bin/env bash
# scripts/fetch-deps.sh's choice of source version (pick_source_version) on sample `apt-cache showsrc`
# output: the installed version when listed, else the newest of the same upstream release, else none.
set -uo pipefail
source "$(dirname "$0")/../../scripts/fetch-deps.sh"
failed=0
check() {  # check NAME INSTALLED EXPECTED(empty: no choice) VERSION...
  local name=$1 installed=$2 expected=$3 got rc
  shift 3
  got=$(printf 'Package: x\nVersion: %s\nBinary: x\n\n' "$@" | pick_source_version "$installed")
  rc=$?
  if [ -z "$expected" ] && { [ $rc -eq 0 ] || [ -n "$got" ]; }; then
    echo "FAIL $name: expected no choice, got '$got' (rc $rc)"; failed=1
  elif [ -n "$expected" ] && { [ $rc -ne 0 ] || [ "$got" != "$expected" ]; }; then
    echo "FAIL $name: expected '$expected', got '$got' (rc $rc)"; failed=1
  else
    echo "ok $name"
  fi
}
# A security update's revision whose source the deb-src lists lack: the release's source instead.
check security-revision 1.5.4+dfsg2-5+deb12u1 1.5.4+dfsg2-5 1.5.4+dfsg2-5 1.5.5+dfsg-1
check installed-listed 1.5.4+dfsg2-5+deb12u1 1.5.4+dfsg2-5+deb12u1 1.5.4+dfsg2-5 1.5.4+dfsg2-5+deb12u1
check newest-same-upstream 1.5.4+dfsg2-7 1.5.4+dfsg2-5+deb12u2 1.5.4+dfsg2-4 1.5.4+dfsg2-5+deb12u2 1.5.4+dfsg2-5
check other-repack 1.5.4+dfsg2-5 1.5.4+dfsg-1 1.5.4+dfsg-1
check epoch 1:0.9.2-3+deb12u1 1:0.9.2-3 1:0.9.2-3 1:1.0.1-4
check other-upstream-only 0.9.2-3 "" 1.0.1-4 0.10.3-1
check nothing-listed 0.9.2-3 ""
check prefix-is-not-upstream 0.9.2-3 "" 0.9.21-1 10.9.2-1
[ $failed -eq 0 ] && echo "fetch_deps_test: all passed"
exit $failed
