#!/usr/bin/env bash
# Installs what the tests need that is not a Python package: OpenLDAP's slapd for the IDPWLDAP
# tests (each test run starts its own slapd on a free loopback port; nothing listens otherwise),
# Debian's chromium and chromium-driver for the mqweb console's browser tests (Selenium runs
# them headless), mosquitto-clients (mosquitto_pub, mosquitto_sub) for the MQTT channel tests, and
# rhea (the Node.js AMQP 1.0 client, pinned in tests/amqp/node/package-lock.json) for the AMQP ones.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -d "$here/tests/amqp/node/node_modules/rhea" ]; then
    command -v npm >/dev/null 2>&1 || { echo "tools/services.sh: npm is needed for rhea (Node.js 20)" >&2; exit 1; }
    echo "tools/services.sh: installing rhea (npm ci in tests/amqp/node): the AMQP tests' Node.js client"
    npm ci --prefix "$here/tests/amqp/node" --no-audit --no-fund --silent
fi
need=()
why=()
command -v slapd >/dev/null 2>&1 || [ -x /usr/sbin/slapd ] || { need+=(slapd ldap-utils); why+=("slapd: the LDAP (IDPWLDAP) tests"); }
command -v chromium >/dev/null 2>&1 || { need+=(chromium); why+=("chromium: the mqweb console's browser tests"); }
command -v chromedriver >/dev/null 2>&1 || { need+=(chromium-driver); why+=("chromium-driver: Selenium's driver for them"); }
command -v mosquitto_pub >/dev/null 2>&1 || { need+=(mosquitto-clients); why+=("mosquitto-clients: the MQTT channel tests"); }
if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
for w in "${why[@]}"; do echo "tools/services.sh: installing $w"; done
if [ "$(id -u)" != 0 ]; then
    echo "tools/services.sh: missing ${need[*]} and this is not root: install Debian's packages" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "${need[@]}" >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null; }
