// POST /verify/math: validated here, evaluated in a workflow by the math engine activity.
import type { AppDeps } from '../deps.js';
import { bodyAsInput, engineRoute } from '../engine-route.js';

export function mathHandlers(deps: AppDeps) {
  const verifyMath = engineRoute(deps, 'verifyMath', { engine: 'math', prepare: bodyAsInput });
  return { verifyMath };
}
