// /badge/*: SVG badges (no authentication). Every input is untrusted and goes through
// core/badges.ts; every outcome, including unknown ids, is a badge, never an error page.
import type { Context } from 'koa';
import {
  attestationBadgeState,
  isKnownStatus,
  renderAttestationBadge,
  renderBadge,
  renderEngineBadge,
  renderNotFoundBadge,
  renderStatusBadge,
  renderVerifiedBadge,
} from '../../core/badges.js';
import { findAttestation } from '../../core/proof-store.js';
import type { AppDeps } from '../deps.js';
import { endpoint } from '../bind-endpoints.js';
import { verifyToken } from '../attestations.js';
import { ATTESTATION_ID_PATTERN } from '../../contract/attestation.js';

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sendSvg(ctx: Context, svg: string, cacheSeconds: number): void {
  ctx.type = 'image/svg+xml; charset=utf-8';
  // The SVG is served as a document when opened directly: forbid scripts and foreign content.
  ctx.set('Content-Security-Policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'");
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', cacheSeconds > 0 ? `public, max-age=${cacheSeconds}` : 'no-cache');
  ctx.body = svg;
}

export function badgeHandlers(deps: AppDeps) {
  const badgeVerified = endpoint('badgeVerified', [], async (ctx) => {
    const status = one(ctx.query.status)?.trim().toLowerCase();
    sendSvg(ctx, renderVerifiedBadge(status === 'verified', one(ctx.query.label) ?? 'svc'), 300);
  });

  // Only the contract's statuses are drawn; anything else is the fixed "unknown" badge with 404.
  const badgeStatus = endpoint('badgeStatus', [], async (ctx, req) => {
    if (!isKnownStatus(req.params.status)) ctx.status = 404;
    sendSvg(ctx, renderStatusBadge(req.params.status, one(ctx.query.label) ?? 'svc'), 300);
  });

  const badgeEngine = endpoint('badgeEngine', [], async (ctx, req) => {
    sendSvg(ctx, renderEngineBadge(req.params.engine), 300);
  });

  const badgeCustom = endpoint('badgeCustom', [], async (ctx) => {
    const q = ctx.query;
    sendSvg(
      ctx,
      renderBadge({
        label: one(q.label),
        message: one(q.message),
        color: one(q.color),
        labelColor: one(q.labelColor),
        logo: one(q.logo),
      }),
      300,
    );
  });

  // "verified"/"admitted" only for a stored attestation whose token verifies now (and, for code
  // and SQL, signs ADMIT); "blocked" when it signs BLOCKED; expired or no longer
  // verifiable tokens say so; unknown ids are "not found". Public: the id is an unguessable jti.
  const badgeAttestation = endpoint('badgeAttestation', [], async (ctx, req) => {
    const id = req.params.id;
    let rec;
    try {
      rec = ATTESTATION_ID_PATTERN.test(id) ? await findAttestation(deps.store, id) : null;
    } catch {
      // Store down: still a badge (never VERIFIED), with a status that tells caches not to keep it.
      ctx.status = 503;
      return sendSvg(ctx, renderAttestationBadge('unavailable'), 0);
    }
    if (!rec) return sendSvg(ctx, renderNotFoundBadge('attestation'), 0);
    const v = await verifyToken(deps.cfg, rec.token);
    // The signed admission leads: a valid token of blocked content is a red "blocked" badge.
    if (v.valid) return sendSvg(ctx, renderAttestationBadge(attestationBadgeState(v.claims)), 0);
    sendSvg(ctx, renderAttestationBadge(v.reason === 'token expired' ? 'expired' : 'invalid'), 0);
  });
  return { badgeVerified, badgeStatus, badgeEngine, badgeCustom, badgeAttestation };
}
