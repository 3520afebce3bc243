#!/usr/bin/env bash
# Vendor xterm.js and its fit addon from the npm registry into door/web/static/vendor/.
#
#     tools/vendor_xterm.sh                 # the versions pinned below
#     tools/vendor_xterm.sh 6.0.1 0.11.1    # other versions (then commit the result)
#
# The page loads these files from door itself (no CDN at run time). The script fetches
# the two tarballs with `npm pack` in a scratch directory (nothing is installed in the
# repository), checks each against the sha512 integrity the registry states, copies the
# browser builds, the stylesheet and both LICENSE files, and rewrites VENDOR.md with the
# versions, the integrities and each copied file's SHA-256.
set -euo pipefail
cd "$(dirname "$0")/.."

XTERM_VERSION="${1:-6.0.0}"
FIT_VERSION="${2:-0.11.0}"
DEST=door/web/static/vendor

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# `npm pack --json` prints, per package, its tarball's file name and integrity; npm checks
# the download against the registry's integrity itself, and we check it once more below.
(cd "$scratch" && npm pack --silent --json "@xterm/xterm@$XTERM_VERSION" \
    "@xterm/addon-fit@$FIT_VERSION" >packed.json)

read_packed() {  # read_packed <package name> <field>
    python3 - "$scratch/packed.json" "$1" "$2" <<'EOF'
import json, sys
packed = {entry["name"]: entry for entry in json.load(open(sys.argv[1]))}
print(packed[sys.argv[2]][sys.argv[3]])
EOF
}

check_integrity() {  # check_integrity <tarball> <sha512-base64 integrity>
    local got
    got="sha512-$(openssl dgst -sha512 -binary "$1" | base64 -w0)"
    if [ "$got" != "$2" ]; then
        echo "vendor_xterm: $1 is $got, the registry says $2" >&2
        exit 1
    fi
}

xterm_tgz="$scratch/$(read_packed @xterm/xterm filename)"
fit_tgz="$scratch/$(read_packed @xterm/addon-fit filename)"
xterm_integrity="$(read_packed @xterm/xterm integrity)"
fit_integrity="$(read_packed @xterm/addon-fit integrity)"
check_integrity "$xterm_tgz" "$xterm_integrity"
check_integrity "$fit_tgz" "$fit_integrity"

mkdir -p "$scratch/xterm" "$scratch/fit"
tar xzf "$xterm_tgz" -C "$scratch/xterm"
tar xzf "$fit_tgz" -C "$scratch/fit"

rm -rf "$DEST"
mkdir -p "$DEST"
# lib/xterm.js and lib/addon-fit.js are the UMD builds: a plain <script src> defines the
# globals Terminal and FitAddon.FitAddon (the .mjs files are the ES-module builds).
cp "$scratch/xterm/package/lib/xterm.js" "$DEST/xterm.js"
cp "$scratch/xterm/package/css/xterm.css" "$DEST/xterm.css"
cp "$scratch/xterm/package/LICENSE" "$DEST/LICENSE.xterm"
cp "$scratch/fit/package/lib/addon-fit.js" "$DEST/addon-fit.js"
cp "$scratch/fit/package/LICENSE" "$DEST/LICENSE.addon-fit"

{
    echo "# Vendored browser files"
    echo
    echo "Copied from the npm registry by \`tools/vendor_xterm.sh\`; do not edit them by hand."
    echo "door serves them to its web page (door/web/static/index.html); nothing is fetched"
    echo "from elsewhere at run time."
    echo
    echo "| package | version | tarball integrity (npm, sha512) | licence |"
    echo "|---|---|---|---|"
    echo "| @xterm/xterm | $XTERM_VERSION | \`$xterm_integrity\` | MIT, LICENSE.xterm |"
    echo "| @xterm/addon-fit | $FIT_VERSION | \`$fit_integrity\` | MIT, LICENSE.addon-fit |"
    echo
    echo "Files (SHA-256) and where each comes from in its package:"
    echo
    echo '```'
    (cd "$DEST" && for f in xterm.js xterm.css LICENSE.xterm addon-fit.js LICENSE.addon-fit; do
        sha256sum "$f"
    done)
    echo '```'
    echo
    echo "xterm.js = @xterm/xterm lib/xterm.js (UMD build), xterm.css = css/xterm.css,"
    echo "addon-fit.js = @xterm/addon-fit lib/addon-fit.js (UMD build)."
    echo
    echo "## Updating"
    echo
    echo "    tools/vendor_xterm.sh XTERM_VERSION FIT_VERSION   # e.g. 6.0.0 0.11.0"
    echo
    echo "then change the defaults at the top of the script to the new versions, run"
    echo "\`tests/e2e/test_browser.py\` (it drives the page in a real Chromium) and commit the"
    echo "directory and the script together. Take the addon release made for that xterm"
    echo "release (their changelogs say which)."
} >"$DEST/VENDOR.md"

echo "vendored @xterm/xterm $XTERM_VERSION and @xterm/addon-fit $FIT_VERSION into $DEST"
