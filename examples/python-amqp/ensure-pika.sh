#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ensure-pika.sh prints the path of a Python 3 interpreter that can import
# pika, installing the Debian package python3-pika (as root, with apt-get)
# when none can. It exits 1, naming what was tried, when that fails.
# The Go test (python_test.go) runs it; under CI=true a failure fails it.
set -u

find_python() {
	for py in python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import pika' >/dev/null 2>&1; then
			command -v "$py"
			return 0
		fi
	done
	return 1
}

if find_python; then
	exit 0
fi
if [ "$(id -u)" != "0" ]; then
	echo "ensure-pika: pika is not installed and this is not root: run 'apt-get install -y python3-pika' (or 'pip install pika')" >&2
	exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "ensure-pika: pika is not installed and there is no apt-get: run 'pip install pika'" >&2
	exit 1
fi
echo "ensure-pika: installing python3-pika with apt-get" >&2
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-pika >&2; then
	apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-pika >&2
fi
if find_python; then
	exit 0
fi
echo "ensure-pika: python3-pika was installed but no python3 can import pika" >&2
exit 1
