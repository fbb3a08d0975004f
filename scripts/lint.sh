#!/usr/bin/env bash
# Hygiene checks of the C++ sources: formatting (clang-format 14, .clang-format) and static
# checks (clang-tidy 14, .clang-tidy). Exits 1 when anything is found, listing it.
#
#   scripts/lint.sh           format check of every C++ file; clang-tidy on the C++ files changed
#                             since MCB_LINT_BASE (default HEAD~1) and those not yet committed
#   scripts/lint.sh --all     clang-tidy on every C++ source as well (minutes on two cores)
#   scripts/lint.sh --fix     rewrite every C++ file in the project's format instead of checking
#   scripts/lint.sh --format  the format check alone (seconds; what CI runs, since clang-tidy's
#                             time depends on how many files the last commit touched)
#
# clang-tidy reads build/compile_commands.json (MCB_BUILD_DIR), configured here when missing.
# A header's findings are reported when the header itself is in the checked set, so a change is
# judged by what it touches.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MCB_BUILD_DIR:-$root/build}"
format="${MCB_CLANG_FORMAT:-clang-format-14}"
tidy="${MCB_CLANG_TIDY:-clang-tidy-14}"
mode="${1:-changed}"
case "$mode" in changed|--all|--fix|--format) ;; *) echo "lint: unknown option '$mode' (use --all, --fix or --format)" >&2; exit 2 ;; esac
cd "$root"

# Every C++ file the project owns (tracked or new, not ignored), build folders excluded.
all_files() {
  git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' | grep -v '^build' || true
}

if [ "$mode" = "--fix" ]; then
  all_files | xargs -r "$format" -i --style=file
  exit 0
fi

status=0
echo "lint: clang-format ($format)"
unformatted=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if ! "$format" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then unformatted+=("$f"); fi
done < <(all_files)
if [ ${#unformatted[@]} -gt 0 ]; then
  printf '  not formatted: %s\n' "${unformatted[@]}"
  echo "lint: ${#unformatted[@]} file(s) differ from .clang-format (scripts/lint.sh --fix rewrites them)"
  status=1
fi
if [ "$mode" = "--format" ]; then
  [ "$status" -eq 0 ] && echo "lint: format clean"
  exit "$status"
fi

if [ "$mode" = "--all" ]; then
  mapfile -t checked < <(all_files)
else
  base="${MCB_LINT_BASE:-HEAD~1}"
  if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
    # A shallow clone has no parent to compare with: what changed is unknown, and checking
    # every source takes most of an hour on two cores, so clang-tidy is left to --all.
    if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
      echo "lint: clang-tidy skipped: $base is not in this shallow clone (scripts/lint.sh --all checks every file)"
      exit $status
    fi
    base="$(git hash-object -t tree /dev/null)"  # the first commit: every file is new
  fi
  mapfile -t checked < <({ git diff --name-only --diff-filter=d "$base" -- '*.cpp' '*.hpp';
                           git ls-files --others --exclude-standard -- '*.cpp' '*.hpp'; } |
                         grep -v '^build' | sort -u)
fi
# clang-tidy compiles sources; a header is checked through the source of the same name, else
# through every source that includes it.
sources=()
headers=()
for f in "${checked[@]}"; do
  [ -f "$f" ] || continue
  case "$f" in
    *.cpp) sources+=("$f") ;;
    *.hpp)
      headers+=("$f")
      if [ -f "${f%.hpp}.cpp" ]; then
        sources+=("${f%.hpp}.cpp")
      else
        while IFS= read -r user; do sources+=("$user"); done < <(git grep -l "#include \"$f\"" -- '*.cpp' || true)
      fi
      ;;
  esac
done
mapfile -t sources < <(printf '%s\n' "${sources[@]}" | grep . | sort -u || true)
if [ ${#sources[@]} -eq 0 ]; then
  echo "lint: clang-tidy: no changed C++ sources since ${base:-?}"
  exit $status
fi
if [ ! -f "$build/compile_commands.json" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE="${MCB_BUILD_TYPE:-Release}" >/dev/null
fi
cmake --build "$build" --target mcb_revision >/dev/null  # the generated header sources include
# Only sources the build compiles (a test fixture or a removed target is not checked).
mapfile -t sources < <(for s in "${sources[@]}"; do
  grep -q "\"file\": \"$root/$s\"" "$build/compile_commands.json" && echo "$s"; done || true)
filter='$^'
if [ ${#headers[@]} -gt 0 ]; then
  filter="($(printf '%s|' "${headers[@]}" | sed 's/[.]/\\./g; s/|$//'))\$"
fi
[ "$mode" = "--all" ] && filter='/(apps|calibration|common|harness|jobscripts|matching|simulator|tests)/[^/].*\.hpp$'
jobs="${MCB_LINT_JOBS:-$(nproc 2>/dev/null || echo 2)}"
echo "lint: clang-tidy ($tidy) on ${#sources[@]} source(s), $jobs at a time"
# A header's finding is reported by every source that includes it: each is listed once. A run
# of clang-tidy that fails without a finding (a source that does not compile) fails the lint too.
tidy_status=0
output="$(printf '%s\n' "${sources[@]}" |
          xargs -P "$jobs" -n 4 "$tidy" -p "$build" --quiet --header-filter="$filter" 2>&1)" ||
  tidy_status=$?
findings="$(grep -E '(warning|error):' <<<"$output" | sort -u || true)"
if [ -n "$findings" ]; then
  printf '%s\n' "$findings"
  status=1
elif [ $tidy_status -ne 0 ]; then
  printf '%s\n' "$output" | tail -20
  echo "lint: clang-tidy failed (exit $tidy_status) without a finding"
  status=1
fi
[ $status -eq 0 ] && echo "lint: clean"
exit $status
