# Debian packages for the install scripts of hack/ (source it).
# shellcheck shell=bash
#
#   hpa_install_missing NAME PACKAGE...   installs those of the packages dpkg does not show
#                                         installed (apt-get, through sudo unless root), saying
#                                         "NAME: installing ..."; fails when apt-get fails.
#                                         HPA_INSTALLED is 1 when it installed something, else 0.

hpa_install_missing() { # <name> <package...>
  local name=$1 package sudo=""
  shift
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  HPA_INSTALLED=0
  [ ${#missing[@]} -gt 0 ] || return 0
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "$name: installing ${missing[*]}"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  HPA_INSTALLED=1
}
