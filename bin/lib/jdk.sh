# Sourced by the launchers: finds a JDK 21 or newer and exports JAVA_HOME, or explains what is missing.
# Order: JAVA_HOME if it is 21+, then the usual install locations, then `java` on the PATH.

sluice_java_major() { # prints the major version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n 1
}

sluice_find_jdk() {
  local candidate major
  for candidate in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*-25* /usr/lib/jvm/*25* \
      /usr/lib/jvm/*-21* /usr/lib/jvm/*21* /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
    major=$(sluice_java_major "$candidate/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      export JAVA_HOME="$candidate"
      return 0
    fi
  done
  if command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1; then
    major=$(sluice_java_major "$(command -v java)")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
      export JAVA_HOME
      return 0
    fi
  fi
  echo "sluice: needs a JDK 21 or newer (java and javac)." >&2
  echo "  JAVA_HOME=${JAVA_HOME:-<unset>}; java on PATH: $(command -v java >/dev/null 2>&1 && sluice_java_major "$(command -v java)" || echo none)" >&2
  echo "  Install one (e.g. 'apt-get install openjdk-21-jdk') or point JAVA_HOME at it." >&2
  return 1
}

# Flags for running Sluice on the JDK in JAVA_HOME; $1 is the command (serve, sim, ...). The load
# harness runs this function for its Sluice child, so that what it measures is what users run: this is
# the one place for them. From JDK 23 on, sun.misc.Unsafe's memory access is deprecated, and Netty
# (under Vert.x) stops using it on JDK 25 unless it is explicitly allowed, falling back to slower
# buffer access: measured, about 5-8% more CPU per proxied request (docs/BENCHMARKS-gateway.md).
# Allowing it also keeps the JDK's warning off the console.
sluice_jvm_flags() {
  local major
  major=$(sluice_java_major "$JAVA_HOME/bin/java")
  if [ -n "$major" ] && [ "$major" -ge 23 ]; then
    echo "--sun-misc-unsafe-memory-access=allow"
  fi
}
