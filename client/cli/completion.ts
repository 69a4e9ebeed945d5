// `svc completion bash|zsh`: shell completion scripts (commands, verify kinds, flags). Static:
// they never call the service.
const COMMANDS = ['verify', 'batch', 'keys', 'login', 'logout', 'health', 'mcp', 'completion', 'help'];
const KINDS = [
  'math',
  'logic',
  'code',
  'sql',
  'fact',
  'stats',
  'consensus',
  'natural_language',
  'image',
  'process',
  'rag',
];
const KEYS = ['create', 'list', 'revoke'];
const GLOBAL = [
  '--json',
  '--base-url',
  '--api-key',
  '--token',
  '--timeout',
  '--retries',
  '--verbose',
  '--help',
  '--version',
];
const VERIFY = [
  '--domain',
  '--tolerance',
  '--precision',
  '--provider',
  '--language',
  '--dialect',
  '--schema',
  '--schema-ddl',
  '--context',
  '--query',
  '--claim',
  '--mode',
  '--min-confidence',
  '--milestone',
];
const BATCH = ['--out', '--jsonl', '--poll-ms', '--wait-timeout', '--chunk-size', '--progress', '--no-progress'];
const LOGIN = ['--email', '--password-stdin', '--token', '--api-key', '--base-url', '--status'];

export const SHELLS = ['bash', 'zsh'] as const;

export function completionScript(shell: (typeof SHELLS)[number]): string {
  const w = (xs: string[]) => xs.join(' ');
  if (shell === 'bash') {
    return `# bash completion for svc; add to ~/.bashrc:  source <(svc completion bash)
_svc() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" cmd="\${COMP_WORDS[1]}" words
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${w(COMMANDS)} --version --help"
  else
    case "$cmd" in
      verify) if [ "$COMP_CWORD" -eq 2 ]; then words="${w(KINDS)}"; else words="${w([...VERIFY, ...GLOBAL])}"; fi ;;
      batch) words="${w([...BATCH, ...GLOBAL])}" ;;
      keys) if [ "$COMP_CWORD" -eq 2 ]; then words="${w(KEYS)}"; else words="--scopes --expires-in-days ${w(GLOBAL)}"; fi ;;
      login) words="${w(LOGIN)}" ;;
      completion) words="${w([...SHELLS])}" ;;
      *) words="${w(GLOBAL)}" ;;
    esac
  fi
  if [[ "$cur" != -* && "$COMP_CWORD" -gt 2 ]]; then
    COMPREPLY=( $(compgen -f -- "$cur") )
  else
    COMPREPLY=( $(compgen -W "$words" -- "$cur") )
  fi
}
complete -o default -F _svc svc
`;
  }
  return `#compdef svc
# zsh completion for svc; add to ~/.zshrc:  source <(svc completion zsh)
_svc() {
  local -a words_
  if (( CURRENT == 2 )); then
    words_=(${w(COMMANDS)} --version --help)
  else
    case "$words[2]" in
      verify) if (( CURRENT == 3 )); then words_=(${w(KINDS)}); else words_=(${w([...VERIFY, ...GLOBAL])}); _files; fi ;;
      batch) words_=(${w([...BATCH, ...GLOBAL])}); _files ;;
      keys) if (( CURRENT == 3 )); then words_=(${w(KEYS)}); else words_=(--scopes --expires-in-days ${w(GLOBAL)}); fi ;;
      login) words_=(${w(LOGIN)}) ;;
      completion) words_=(${w([...SHELLS])}) ;;
      *) words_=(${w(GLOBAL)}) ;;
    esac
  fi
  compadd -a words_
}
if [[ "$funcstack[1]" = "_svc" ]]; then _svc "$@"; else compdef _svc svc; fi
`;
}
