// Quick start with the TypeScript client (client/): sign up or sign in, mint a verify-only key,
// verify a claim. Run: npx tsx examples/verify.ts   (SVC_BASE_URL, SVC_EMAIL, SVC_PASSWORD).
import { SvcApiError, SvcClient } from '../client/index.js';

const baseUrl = process.env.SVC_BASE_URL ?? 'http://127.0.0.1:8000';
const email = process.env.SVC_EMAIL ?? 'me@example.com';
const password = process.env.SVC_PASSWORD ?? 'a long passphrase 42';

async function session(): Promise<string> {
  const anon = new SvcClient({ baseUrl });
  try {
    return (await anon.signup({ email, password, organization_name: 'Quick start' })).access_token;
  } catch (err) {
    // 409: the account exists already (a second run): sign in instead.
    if (!(err instanceof SvcApiError) || err.status !== 409) throw err;
    return (await anon.signin({ email, password })).access_token;
  }
}

const accessToken = await session();
const { key } = await new SvcClient({ baseUrl, accessToken }).createKey({
  name: 'quick start (ts)',
  scopes: ['verify:read'],
});
const result = await new SvcClient({ baseUrl, apiKey: key }).verifyMath('(x+1)^2 = x^2 + 2*x + 1');
console.log(`status: ${result.status}`);
console.log(`proof_ref: ${result.proof_ref ?? 'none'}`);
