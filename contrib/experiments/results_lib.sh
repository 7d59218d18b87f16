# Shared by the scripts that write doc/'s and README's results (sourced, not
# run): their command line, [OUT_DIR] [--doc FILE], and the line under each
# table that says at which commit, on which date and machine it was made.

# parse_out_and_doc SCRIPT DEFAULT_OUT ARGS...: sets $out, $doc (the last
# --doc) and $docs (every --doc, for a script whose blocks live in several files).
parse_out_and_doc() {
  script=$1 out=$2 doc= docs=
  shift 2
  while [ $# -gt 0 ]; do
    case $1 in
      --doc) [ $# -ge 2 ] || { echo "$script: --doc needs a FILE" >&2; exit 2; }
        doc=$2 docs="$docs $2"; shift 2 ;;
      -*) echo "$script: unknown option $1" >&2; exit 2 ;;
      *) out=$1; shift ;;
    esac
  done
}

# pacml_binary: sets $pacml, $PACML (default: pacml on PATH) made absolute when
# it is a path, so that a script may run it from the source tree's top ($top).
pacml_binary() {
  pacml=${PACML:-pacml}
  case $pacml in
    */*) pacml=$(cd "$(dirname "$pacml")" && pwd)/$(basename "$pacml") ;;
  esac
  top=$(cd "$here/../.." && pwd)
}

# made_by_line SCRIPT [DETAIL]: "Made by `SCRIPT` at COMMIT on DATE, MACHINE[; DETAIL]."
made_by_line() {
  commit=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')
  cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)
  echo "Made by \`$1\` at $commit on $(date -u +%Y-%m-%d), $(nproc)-core $(uname -m) ($cpu)${2:+; $2}."
}

# shared_data SCRIPT_DIR: sets and exports $PACML_SHARED_DATA (default:
# ../shared/data beside the source tree), where the data outside the
# repository are (ElasticFlow's traces, the PipeDream profiles).
shared_data() {
  PACML_SHARED_DATA=${PACML_SHARED_DATA:-$1/../../../shared/data}
  export PACML_SHARED_DATA
}

# elasticflow_archive SCRIPT_DIR: sets $archive, ElasticFlow's traces under
# $PACML_SHARED_DATA (shared_data).
elasticflow_archive() {
  shared_data "$1"
  archive=$PACML_SHARED_DATA/elasticflow/elasticflow-traces.tar.gz
}

# write_block NAME FILE: replaces the block "<!-- NAME -->" ... "<!-- end of
# NAME -->" of each --doc document ($docs) with FILE.
write_block() {
  for d in $docs; do
    python3 "$here/replace_block.py" "$d" "$1" "$2"
  done
}

# unpack_elasticflow_traces: unpacks $archive into $traces, a temporary folder
# removed on exit; then `trace_file NAME` is the path of NAME.csv in it.
unpack_elasticflow_traces() {
  traces=$(mktemp -d)
  trap 'rm -rf "$traces"' EXIT
  tar xzf "$archive" -C "$traces"
}
trace_file() { find "$traces" -name "$1.csv" | head -n 1; }
