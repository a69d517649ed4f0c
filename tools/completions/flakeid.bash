# bash completion for flakeid (installed as bash-completion/completions/flakeid).
_flakeid() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null 2>&1; then
    _init_completion || return
  else
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    words=("${COMP_WORDS[@]}")
    cword=$COMP_CWORD
  fi

  local commands="gen parse range encode decode layouts sql bench serve help version"
  local forms="decimal radix62 radix36 base32 friendly"
  local layouts="twitter discord sonyflake sonyflake_v2 instagram mastodon cosid cosid_seconds cosid_js baidu seed_classic seed_gene"
  local command="" i
  for ((i = 1; i < cword; i++)); do
    case ${words[i]} in
      -q | --quiet) ;;
      -*) ;;
      *) command=${words[i]}; break ;;
    esac
  done

  case $prev in
    --layout) COMPREPLY=($(compgen -W "$layouts" -- "$cur")); return ;;
    --from | --input) COMPREPLY=($(compgen -W "$forms" -- "$cur")); return ;;
    --to)  # a time for sql, a text form elsewhere
      [[ $command != sql ]] && COMPREPLY=($(compgen -W "$forms" -- "$cur"))
      return ;;
    --format) COMPREPLY=($(compgen -W "text json tsv" -- "$cur")); return ;;
    --generator)  # bench measures; gen also draws from segment stores
      if [[ $command == bench ]]; then
        COMPREPLY=($(compgen -W "classic gene cosid tick blocks all" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "classic gene cosid tick segment" -- "$cur"))
      fi
      return ;;
    --store) COMPREPLY=($(compgen -W "memory file redis postgres" -- "$cur")); return ;;
    --dialect) COMPREPLY=($(compgen -W "postgres mysql" -- "$cur")); return ;;
    --type) COMPREPLY=($(compgen -W "bigint numeric unsigned" -- "$cur")); return ;;
    --by) COMPREPLY=($(compgen -W "gene worker" -- "$cur")); return ;;
    --every) COMPREPLY=($(compgen -W "day month year" -- "$cur")); return ;;
    -n | --worker | --datacenter | --gene | --key | --step | --start | --stride | --remainder | --redis | --postgres | --name | --column | \
      --table | --prefix | --shards | --columns | --threads | --seconds) return ;;
  esac

  local options=""
  case $command in
    "") COMPREPLY=($(compgen -W "$commands --help --version -q" -- "$cur")); return ;;
    help) COMPREPLY=($(compgen -W "$commands" -- "$cur")); return ;;
    gen) options="-n --layout --generator --worker --datacenter --gene --to --format --store --key --step --start --stride --remainder --redis --postgres --config --name" ;;
    parse) options="--layout --format --from --input --bits" ;;
    range) options="--layout --column --format" ;;
    encode) options="--to --pad --layout --from --format --prefix --suffix --width" ;;
    decode) options="--from --to --layout --format --prefix --suffix --width" ;;
    layouts) options="--format" ;;
    bench) options="--layout --generator --threads --seconds --format" ;;
    serve) options="--config --listen --threads --token-file --tls-cert --tls-key --max-count --help --version" ;;
    sql)
      options="--layout --dialect --type --column --prefix --shards --by --table --from --to --every --columns"
      if [[ $cur != -* && ${words[cword - 1]} == sql ]]; then
        COMPREPLY=($(compgen -W "fields functions partitions shards" -- "$cur"))
        return
      fi ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options --help --quiet" -- "$cur"))
  fi
}
complete -F _flakeid flakeid
