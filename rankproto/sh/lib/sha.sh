# shellcheck shell=sh
# sha prints the SHA-256 of its input first on its line: openssl's where
# there is one, since it hashes about three times faster than coreutils'
# sha256sum (a node hashes the whole binary on every run), else
# sha256sum's. "nosha" is printed where neither exists.
sha() {
	if command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r;
	elif command -v sha256sum >/dev/null 2>&1; then sha256sum;
	else echo nosha; fi;
};
