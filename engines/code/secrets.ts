// Hard-coded credentials, found in the source text itself (comments and strings included: a
// key in a comment is leaked all the same). Matches are anchored with charset-complement
// lookarounds, never \b (a v1 key body may end in `-`), and reported masked: the secret never
// reaches a finding, a log or the proof.
import { isValidV2Body } from './api-key-checksum.js';

export interface SecretCheck {
  id: string;
  description: string;
  /** Global regex; capture group 1, when present, is the secret body. */
  pattern: RegExp;
  /** Human-readable validation step, hashed into the rule-table identity. */
  validation: string;
  validate?: (match: RegExpExecArray) => boolean;
  mask: (match: RegExpExecArray) => string;
}

/** Prefix, asterisks, last 4 characters. */
export function maskSecret(prefix: string, secret: string): string {
  return `${prefix}****${secret.slice(-4)}`;
}

export const SECRET_CHECKS: readonly SecretCheck[] = [
  {
    id: 'pem-private-key',
    description: 'Hard-coded private key (PEM)',
    // The header must be followed by key material (real newlines or \n escapes in a literal),
    // so code that merely compares against the header text is not flagged.
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----(?:\s|\\[nr])*(?:[A-Za-z0-9+/]{20,}|Proc-Type:)/g,
    validation: 'header followed by base64 key material',
    mask: (m) => `-----BEGIN ${m[1] ?? ''}PRIVATE KEY${m[2] ?? ''}-----`,
  },
  {
    id: 'aws-access-key-id',
    description: 'Hard-coded AWS access key id',
    pattern: /(?<![A-Za-z0-9])((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?![A-Za-z0-9])/g,
    validation: 'shape only',
    mask: (m) => maskSecret(m[1].slice(0, 4), m[1]),
  },
  {
    id: 'github-token',
    description: 'Hard-coded GitHub token',
    pattern:
      /(?<![A-Za-z0-9_])((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})(?![A-Za-z0-9_])/g,
    validation: 'shape only',
    mask: (m) => maskSecret(m[1].startsWith('github_pat_') ? 'github_pat_' : m[1].slice(0, 4), m[1]),
  },
  {
    id: 'svc-live-api-key',
    description: 'Hard-coded production API key (SVC_LIVE_API_KEY)',
    pattern: /(?<![A-Za-z0-9_-])svc_live_([A-Za-z0-9]{36})(?![A-Za-z0-9_-])/g,
    validation: 'v2 CRC32 Base62 checksum of the first 30 body characters equals the last 6',
    validate: (m) => isValidV2Body(m[1]),
    mask: (m) => maskSecret('svc_live_', m[1]),
  },
  {
    id: 'svc-live-api-key-v1',
    description: 'Hard-coded production API key (SVC_LIVE_API_KEY_V1)',
    pattern: /(?<![A-Za-z0-9_-])svc_live_([A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/g,
    validation: 'shape only (v1 bodies carry no checksum)',
    mask: (m) => maskSecret('svc_live_', m[1]),
  },
];

export interface SecretHit {
  check: SecretCheck;
  index: number;
  masked: string;
}

/** Every validated credential in `text`, with its start offset. */
export function findSecrets(text: string): SecretHit[] {
  const hits: SecretHit[] = [];
  for (const check of SECRET_CHECKS) {
    const re = new RegExp(check.pattern.source, check.pattern.flags);
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (check.validate && !check.validate(m)) continue;
      hits.push({ check, index: m.index, masked: check.mask(m) });
    }
  }
  return hits;
}
