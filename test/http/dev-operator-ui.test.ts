// An operator path in dev (issue 27, point 5), black box where the stack allows it: the Temporal
// UI (through its read-only gate) is told to send cross-origin credentials to the codec server and
// where to sign in; the dev operator seeded into the store signs in through the API; the codec
// server answers the UI's origin with credentials allowed. What the browser then shows is not
// driven here (no headless browser in this suite yet; docs/payload-encryption.md).
import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { db, post, randomIp, stackEnv } from './helpers.js';
import {
  DEV_OPERATOR_EMAIL,
  DEV_OPERATOR_ORG_ID,
  devOperatorFrom,
  seedDevOperator,
  withDevOperator,
} from '../../infra/dev-operator.js';
import { generateSecrets } from '../../infra/secrets.js';
import { codecServerPort } from '../../infra/stack.js';
import { codecSettings, gatedSettings, READ_ONLY_SETTINGS } from '../../infra/temporal-ui-gate.js';

const uiUrl = () => `http://127.0.0.1:${inject('ports').temporalUi}`;
const codecUrl = () => `http://127.0.0.1:${codecServerPort(inject('ports'))}`;

describe('Temporal UI settings through the gate', () => {
  it('turn cross-origin credentials on for the codec server and say where to sign in', async () => {
    const res = await fetch(`${uiUrl()}/api/v1/settings`);
    expect(res.status).toBe(200);
    const s = (await res.json()) as any;
    expect(s.Codec).toMatchObject({
      Endpoint: codecUrl(),
      IncludeCredentials: true,
      PassAccessToken: false,
      DefaultErrorLink: `${codecUrl()}/`,
    });
    expect(s.Codec.DefaultErrorMessage).toContain(`sign in at the codec server (${codecUrl()}/)`);
    // The read-only settings stay.
    expect(s).toMatchObject(READ_ONLY_SETTINGS);
  });

  it('the codec server lets the UI origin send credentials (preflight of a decode)', async () => {
    const origin = new URL(uiUrl()).origin;
    const pre = await fetch(`${codecUrl()}/default/decode`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('gatedSettings: no endpoint, nothing added; an endpoint gets credentials and the sign-in link', () => {
    expect(codecSettings({ Endpoint: '', IncludeCredentials: false })).toEqual({
      Endpoint: '',
      IncludeCredentials: false,
    });
    expect(codecSettings(undefined)).toBeUndefined();
    expect(
      gatedSettings({ Version: '2', Codec: { Endpoint: 'http://127.0.0.1:8234', IncludeCredentials: false } }),
    ).toMatchObject({
      Version: '2',
      DisableWriteActions: true,
      Codec: {
        Endpoint: 'http://127.0.0.1:8234',
        IncludeCredentials: true,
        DefaultErrorLink: 'http://127.0.0.1:8234/',
      },
    });
  });
});

describe('the dev operator', () => {
  it('is generated once with the secrets and added to the operator list', () => {
    const op = devOperatorFrom(generateSecrets());
    expect(op).toMatchObject({ email: DEV_OPERATOR_EMAIL, userId: expect.stringMatching(/^usr_devop[0-9a-f]{16}$/) });
    expect(op!.password.length).toBeGreaterThanOrEqual(12);
    expect(withDevOperator(' usr_a , usr_b', op!)).toBe(`usr_a,usr_b,${op!.userId}`);
    expect(withDevOperator(undefined, op!)).toBe(op!.userId);
    expect(withDevOperator(op!.userId, op!)).toBe(op!.userId);
    expect(devOperatorFrom({})).toBeNull();
  });

  it('is seeded into the store once and signs in through the API', async () => {
    const op = {
      userId: `usr_devop${randomBytes(8).toString('hex')}`,
      email: `op-${randomBytes(4).toString('hex')}@svc.local`,
      password: `devop-${randomBytes(12).toString('base64url')}`,
    };
    expect(await seedDevOperator(stackEnv().MONGODB_URI as string, op)).toBe('created');
    expect(await seedDevOperator(stackEnv().MONGODB_URI as string, op)).toBe('exists');
    const user = await (await db()).collection('users').findOne({ _id: op.userId as any });
    expect(user).toMatchObject({ email: op.email, org_id: DEV_OPERATOR_ORG_ID, role: 'owner', active: true });
    const signin = await post(
      '/auth/signin',
      { email: op.email, password: op.password },
      { 'x-forwarded-for': randomIp() },
    );
    expect(signin.status).toBe(200);
    expect(signin.body.user).toMatchObject({ id: op.userId, org_id: DEV_OPERATOR_ORG_ID });
  });
});
