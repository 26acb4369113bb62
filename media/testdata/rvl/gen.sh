#!/bin/sh
# gen.sh UPSTREAM: rebuilds the RVL fixtures beside this script with
# compressed_depth_image_transport's own encoder and decoder.
#
# UPSTREAM is a checkout of ros-perception/image_transport_plugins at
# noetic-devel (the fixtures were made at cae592ce0816ea03bc38f0b6d27b6eae907feb10);
# its sources are compiled here, never copied into this repository. Needs
# g++, Debian's libcv-bridge-dev and libsensor-msgs-dev, python3-numpy.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
up=$1/compressed_depth_image_transport
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O1 -std=c++17 -I "$up/include" $(pkg-config --cflags opencv4 cv_bridge roscpp) \
	"$here/peer.cpp" "$up/src/codec.cpp" "$up/src/rvl_codec.cpp" -o "$tmp/peer" \
	$(pkg-config --libs cv_bridge roscpp) -lopencv_imgcodecs -lopencv_core
/usr/bin/python3 "$here/gen.py" "$tmp/peer" "$here"
