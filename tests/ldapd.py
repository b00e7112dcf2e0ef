"""A private OpenLDAP server (Debian's slapd) for the IDPWLDAP tests: its own configuration,
directory and port under a temporary directory, loaded with test users and groups. The project's
CI installs slapd (.ci/run); without it the tests fail under CI=true and are skipped elsewhere."""
from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from mqlite.testing import free_port

SUFFIX = "dc=example,dc=com"
CONF = """include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {dir}/slapd.pid
database mdb
maxsize 10485760
suffix "{suffix}"
rootdn "cn=admin,{suffix}"
rootpw adminpw
directory {dir}/db
access to attrs=userPassword by anonymous auth by self write by * none
access to * by * read
"""
DATA = """dn: {suffix}
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ou=users,{suffix}
objectClass: organizationalUnit
ou: users

dn: ou=groups,{suffix}
objectClass: organizationalUnit
ou: groups

dn: uid=lapp,ou=users,{suffix}
objectClass: inetOrgPerson
uid: lapp
cn: LDAP App
sn: App
userPassword: ldappw1

dn: uid=lbob,ou=users,{suffix}
objectClass: inetOrgPerson
uid: lbob
cn: LDAP Bob
sn: Bob
userPassword: ldappw2

dn: cn=mqapps,ou=groups,{suffix}
objectClass: groupOfNames
cn: mqapps
member: uid=lapp,ou=users,{suffix}
"""


def slapd_path() -> str | None:
    return shutil.which("slapd") or (os.path.exists("/usr/sbin/slapd") and "/usr/sbin/slapd") or None


class Slapd:
    def __init__(self, directory: str) -> None:
        self.dir = directory
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        os.makedirs(os.path.join(self.dir, "db"), exist_ok=True)
        conf = os.path.join(self.dir, "slapd.conf")
        with open(conf, "w") as f:
            f.write(CONF.format(dir=self.dir, suffix=SUFFIX))
        ldif = os.path.join(self.dir, "data.ldif")
        with open(ldif, "w") as f:
            f.write(DATA.format(suffix=SUFFIX))
        binary = slapd_path()
        assert binary
        subprocess.run([binary.replace("slapd", "slapadd"), "-f", conf, "-l", ldif], check=True, capture_output=True)
        self.proc = subprocess.Popen([binary, "-f", conf, "-h", f"ldap://127.0.0.1:{self.port}/", "-d", "0"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import socket
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("slapd did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)


@pytest.fixture(scope="module")
def slapd(tmp_path_factory):
    if slapd_path() is None:
        if os.environ.get("CI"):
            pytest.fail("slapd is not installed: .ci/run installs Debian's slapd package")
        pytest.skip("slapd is not installed (apt-get install slapd ldap-utils)")
    server = Slapd(str(tmp_path_factory.mktemp("slapd")))
    server.start()
    yield server
    server.stop()
