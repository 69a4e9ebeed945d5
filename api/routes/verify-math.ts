// POST /verify/math: validated here, evaluated in a workflow by the math engine activity.
import type Router from '@koa/router';
import { mathRequestSchema } from '../../contract/math.js';
import type { AppDeps } from '../deps.js';
import { registerEngineRoute } from '../engine-route.js';

export function registerMathRoutes(router: Router, deps: AppDeps): void {
  registerEngineRoute(router, deps, { path: '/verify/math', engine: 'math', schema: mathRequestSchema });
}
