#!/usr/bin/env node
// `npx svc …`: runs the TypeScript CLI (client/cli/svc.ts) through tsx's ESM loader, no build step.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../client/cli/svc.ts', import.meta.url).href);
