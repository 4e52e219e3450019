# tests/device/args.sh — sourced by the device scripts that take
# [-n N] [LAB...]: device_args NAME DEFAULT-LABS -- "$@" sets n (3 unless
# -n says otherwise) and labs (DEFAULT-LABS, a space-separated list, when
# none is given), and ends the script with status 0 where no GPU is.
# Where one is, it makes $OUT and has the checks judged by the catalog's
# targets (a first check on a new GPU model would time every reference
# solution first).
device_args() {
    local name=$1 defaults=$2
    shift 3
    n=3 labs=()
    while [ $# -gt 0 ]; do
        case $1 in
            -n) n=$2; shift 2 ;;
            *) labs+=("$1"); shift ;;
        esac
    done
    if ! nvidia-smi -L >/dev/null 2>&1; then
        echo "$name: no GPU here (nvidia-smi lists none): nothing measured"
        exit 0
    fi
    # shellcheck disable=SC2206
    [ ${#labs[@]} -gt 0 ] || labs=($defaults)
    mkdir -p "$OUT"
    export CUDATUTOR_NO_CALIBRATE=1
}
