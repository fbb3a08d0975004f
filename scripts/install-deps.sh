#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages of scripts/packages.txt that this machine lacks.
# Runs apt-get only when something is missing; uses sudo when not root.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

mapfile -t wanted < <(grep -vE '^\s*(#|$)' "$here/packages.txt")
missing=()
for pkg in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null; then
  echo "install-deps: missing packages (${missing[*]}) and no apt-get on this machine" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Grid Engine's packages would otherwise make a cell of their own (Berkeley DB spool, sgeadmin)
# and start its daemons on the default ports; the rig runs private cells (jobscripts/README.md).
if command -v debconf-set-selections >/dev/null; then
  echo "gridengine-common shared/gridengineconfig boolean false" | $sudo debconf-set-selections
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
