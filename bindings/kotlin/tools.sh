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
