// /badge/* (contract, "Badge endpoints"): SVG, no authentication. Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';

export const badgeVerifiedQuerySchema = nullMeansAbsent(
  z.object({ status: z.string().optional(), label: z.string().optional() }),
);
export const badgeStatusParamsSchema = z.object({ status: z.string().meta({ example: 'VERIFIED' }) });
export const badgeStatusQuerySchema = nullMeansAbsent(z.object({ label: z.string().optional() }));
export const badgeEngineParamsSchema = z.object({ engine: z.string().meta({ example: 'math' }) });
export const badgeAttestationParamsSchema = z.object({ id: z.string() });
export const badgeCustomQuerySchema = nullMeansAbsent(
  z.object({
    label: z.string().optional(),
    message: z.string().optional(),
    color: z.string().optional(),
    labelColor: z.string().optional(),
    logo: z.string().optional(),
  }),
);
/** The SVG document. */
export const svgSchema = z.string().meta({ id: 'Svg' });
