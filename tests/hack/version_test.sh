#!/usr/bin/env bash
# One version: the VERSION file, what the binaries print for --version, the image deploy/ runs and a
# release tag on HEAD all say the same. Usage: version_test.sh ROOT HPA_CONTROLLER_BINARY
set -euo pipefail
root=$1
bin=$2
fail() { echo "FAIL: $*" >&2; exit 1; }

version=$(head -n 1 "$root/VERSION")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "VERSION holds '$version', not MAJOR.MINOR.PATCH"
printf '%s\n' "$version" | cmp -s - "$root/VERSION" || fail "VERSION must hold the version and a newline, nothing else"

# "hpa-controller 0.3.0", then the commit in parentheses when built from a checkout.
expected="^hpa-controller ${version//./\\.}( \([^()[:space:]]+\))?$"
for command in "$bin" "$(dirname "$bin")/kubectl-hpa"; do
  printed=$("$command" --version) || fail "$command --version failed"
  [[ $printed =~ $expected ]] || fail "$(basename "$command") --version prints '$printed', VERSION says $version"
done

# Every image of ours the manifests name carries the version's tag.
images=$(grep -rhoE '^[[:space:]]*image:[[:space:]]*hpa-controller:[^[:space:]]*' "$root/deploy" --include='*.yaml' |
  sed -E 's/^[[:space:]]*image:[[:space:]]*//') || true
[ -n "$images" ] || fail "no 'image: hpa-controller:<version>' in deploy/ (deploy/controller/deployment.yaml had one)"
while read -r image; do
  [ "$image" = "hpa-controller:$version" ] || fail "deploy/ runs $image, VERSION says $version"
done <<<"$images"

# A release tag on the commit checked out names the same version (no git, no checkout: nothing to check).
if command -v git >/dev/null && git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  while read -r tag; do
    [ -z "$tag" ] || [ "$tag" = "v$version" ] || fail "HEAD is tagged $tag, VERSION says $version"
  done < <(git -C "$root" tag --points-at HEAD --list 'v*')
fi
echo "version: $version everywhere"
