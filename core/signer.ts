// Builds the process's attestation signer from configuration. A missing or unusable key
// yields a signer that always fails with a typed AttestationError: the service still runs,
// and every result that would need an attestation fails closed instead of being VERIFIED.
import { AttestationSigner, AttestationError, loadSigningKey } from './attestation.js';
import type { ServiceConfig } from './config.js';
import { logger } from './logger.js';

const log = logger('attestation');

export async function createSigner(cfg: ServiceConfig): Promise<AttestationSigner> {
  try {
    const key = await loadSigningKey(cfg.SVC_ATTESTATION_SIGNING_KEY_PEM);
    return new AttestationSigner(key, cfg.SVC_DEPLOYMENT_ID);
  } catch (err) {
    const code = err instanceof AttestationError ? err.code : 'CRYPTO_UNAVAILABLE';
    log.warn('attestation signing disabled; VERIFIED results will fail closed', { code });
    return new AttestationSigner(null, cfg.SVC_DEPLOYMENT_ID);
  }
}
