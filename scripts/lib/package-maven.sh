# shellcheck shell=bash
# The Maven artifacts (ADR 0026), sourced by scripts/package after scripts/lib/common.sh and
# scripts/lib/package-native.sh:
#   package_maven DIST   writes DIST/maven, a Maven repository holding dev.sika:sika:<version>:
#                        the jar (the stripped glibc 2.17 library at linux-x86-64/, where JNA
#                        looks), -sources.jar, -javadoc.jar (Dokka), the POM, each with .md5,
#                        .sha1, .sha256 and .sha512, and maven-metadata.xml; then
#                        dev.sika:sika-testing:<version> (bindings/jvm-testing, the JUnit 5 kit,
#                        ADR 0051) the same way, its javadoc by maven-javadoc-plugin
# Maven writes the layout itself (`mvn -P release deploy` into a file repository), as it would
# for Maven Central's staging; only the .sha256/.sha512 files are ours (Maven 3.8 writes MD5 and
# SHA-1 only).

package_maven() {
  local dist="${1:?usage: package_maven DIST}"
  # shellcheck source=../../bindings/kotlin/tools.sh
  source "$ROOT/bindings/kotlin/tools.sh"
  ensure_jdk_and_maven
  local version
  version="$(workspace_version)"
  _check_pom_version "$ROOT/bindings/kotlin/pom.xml" "$version"

  local library work="$ROOT/target/package/maven"
  library="$(package_native_library)"
  rm -rf "$work"
  mkdir -p "$work"
  # The bindings come from the unstripped library (uniffi-bindgen reads its metadata symbols);
  # the jar gets the stripped copy.
  step "package: Kotlin bindings from the glibc $SIKA_GLIBC_FLOOR library"
  cargo build --quiet -p uniffi-bindgen
  "$ROOT/target/debug/uniffi-bindgen" generate --library "$library" --language kotlin \
    --out-dir "$work/sources" --no-format >&2
  strip_copy "$library" "$work/resources/linux-x86-64/libsika_ffi.so"
  assert_glibc_floor "$work/resources/linux-x86-64/libsika_ffi.so"

  step "package: dev.sika:sika:$version into $dist/maven (mvn -P release deploy)"
  local repository="$dist/maven" log="$work/mvn.log"
  rm -rf "$repository"
  mkdir -p "$repository"
  repository="$(cd "$repository" && pwd)"
  if ! mvn_batch -f "$ROOT/bindings/kotlin/pom.xml" -P release deploy \
    -Dsika.generated.sources="$work/sources" -Dsika.generated.resources="$work/resources" \
    -DaltDeploymentRepository="dist::file://$repository" 2>&1 | strip_colours >"$log"; then
    tail -n 60 "$log"
    die "package: mvn -P release deploy failed (log: $log)"
  fi
  _write_checksums "$repository" sika "$version"
  _check_maven_bundle "$repository/dev/sika/sika/$version" "sika-$version" dev/sika/sika_ffi.kt \
    linux-x86-64/libsika_ffi.so
  _package_maven_testing "$repository" "$version" "$work"
  find "$repository" -type f -name "sika-*$version*" -not -name '*.md5' -not -name '*.sha*' -printf '%p (%s bytes)\n'
}

# dev.sika:sika-testing, against the dev.sika:sika just deployed to REPOSITORY.
_package_maven_testing() {
  local repository="$1" version="$2" work="$3" pom="$ROOT/bindings/jvm-testing/pom.xml" log
  _check_pom_version "$pom" "$version"
  step "package: dev.sika:sika-testing:$version into $repository (mvn -P release deploy)"
  log="$work/mvn-testing.log"
  # -DskipTests: the extension's own suite (B262, which starts sandboxes) runs in scripts/test-kotlin
  # (kotlin-testing); packaging has no sandbox, and the release files do not change what it tests.
  if ! mvn_batch -f "$pom" -P release deploy -DskipTests -Dsika.repository="file://$repository" \
    -DaltDeploymentRepository="dist::file://$repository" 2>&1 | strip_colours >"$log"; then
    tail -n 60 "$log"
    die "package: mvn -P release deploy of sika-testing failed (log: $log)"
  fi
  _write_checksums "$repository" sika-testing "$version"
  _check_maven_bundle "$repository/dev/sika/sika-testing/$version" "sika-testing-$version" \
    dev/sika/testing/SikaSandbox.java dev/sika/testing/SikaSandboxExtension.class dev/sika/testing/sandbox_control.json
}

# _check_pom_version POM VERSION: the POM states its version (Maven reads it before any plugin
# runs); one that drifted from Cargo.toml's must stop the release, not publish a second number.
_check_pom_version() {
  local pom="$1" version="$2" pom_version
  pom_version="$(python3 -c 'import sys, xml.etree.ElementTree as ET
print(ET.parse(sys.argv[1]).getroot().findtext("{http://maven.apache.org/POM/4.0.0}version"))' "$pom")"
  [[ "$pom_version" == "$version" ]] ||
    die "${pom#"$ROOT"/} has version $pom_version, Cargo.toml $version: make them equal"
}

# _write_checksums REPOSITORY ARTIFACT VERSION: the .sha256 and .sha512 of each file Maven wrote
# for dev.sika:ARTIFACT:VERSION and of its maven-metadata.xml (Maven writes MD5 and SHA-1 only).
_write_checksums() {
  local repository="$1" artifact="$2" version="$3" file
  for file in "$repository/dev/sika/$artifact/$version"/* "$repository/dev/sika/$artifact/maven-metadata.xml"; do
    case "$file" in *.md5 | *.sha1 | *.sha256 | *.sha512) continue ;; esac
    sha256sum "$file" | cut -d ' ' -f 1 | tr -d '\n' >"$file.sha256"
    sha512sum "$file" | cut -d ' ' -f 1 | tr -d '\n' >"$file.sha512"
  done
}

# _check_maven_bundle DIRECTORY BASE SOURCE ENTRY...: what Maven Central would refuse, or a
# merchant miss, fails the packaging here. BASE.jar holds each ENTRY and the licences (a native
# library among them is checked as JNA will extract it), BASE-sources.jar holds SOURCE.
_check_maven_bundle() {
  local directory="$1" base="$2" source="$3" suffix entries element
  shift 3
  for suffix in .jar -sources.jar -javadoc.jar .pom; do
    [[ -s "$directory/$base$suffix" ]] || die "package: $directory lacks $base$suffix"
    for element in md5 sha1 sha256 sha512; do
      [[ -s "$directory/$base$suffix.$element" ]] || die "package: $base$suffix has no .$element"
    done
  done
  entries="$(jar tf "$directory/$base.jar")"
  for element in "$@" META-INF/LICENSE-MIT META-INF/LICENSE-APACHE; do
    grep -qx "$element" <<<"$entries" || die "package: $base.jar lacks $element"
  done
  entries="$(jar tf "$directory/$base-sources.jar")"
  grep -qx "$source" <<<"$entries" || die "package: $base-sources.jar lacks $source"
  ! grep -q '\.so$' <<<"$entries" || die "package: $base-sources.jar holds a native library"
  entries="$(jar tf "$directory/$base-javadoc.jar")"
  grep -qx 'index.html' <<<"$entries" || die "package: $base-javadoc.jar has no index.html"
  # Maven Central's required POM elements, and the dependencies a consumer resolves.
  for element in name description url licenses scm developers dependencies; do
    grep -q "<$element>" "$directory/$base.pom" || die "package: $base.pom has no <$element>"
  done
  # B111: only what a consumer needs (flatten-maven-plugin): no build, profiles, properties,
  # repositories or test dependencies of the SDK's own build.
  for element in build profiles properties repositories; do
    ! grep -q "<$element>" "$directory/$base.pom" || die "package: $base.pom has a <$element> (the build POM, not the consumer's)"
  done
  ! grep -q '<scope>test</scope>' "$directory/$base.pom" || die "package: $base.pom lists test dependencies"
  for element in "$@"; do
    [[ "$element" == *.so ]] || continue
    # The library inside the jar, as JNA will extract it.
    local extracted
    extracted="$(mktemp -d)"
    (cd "$extracted" && jar xf "$directory/$base.jar" "$element")
    assert_glibc_floor "$extracted/$element"
    ! readelf -S "$extracted/$element" | grep -q '\.symtab' || die "package: the jar's library is not stripped"
    rm -rf "$extracted"
  done
}
