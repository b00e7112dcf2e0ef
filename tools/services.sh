#!/usr/bin/env bash
# Installs what the tests need that is not a Python package: OpenLDAP's slapd for the IDPWLDAP
# tests (each test run starts its own slapd on a free loopback port; nothing listens otherwise).
set -euo pipefail
if command -v slapd >/dev/null 2>&1 || [ -x /usr/sbin/slapd ]; then
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "tools/services.sh: slapd is missing and this is not root: install Debian's slapd package" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q slapd ldap-utils >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q slapd ldap-utils >/dev/null; }
