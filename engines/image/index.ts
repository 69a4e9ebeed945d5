// Image claims judged by measured facts (docs/fact-and-image.md).
export { parseImageClaim, type Assertion, type ParsedAssertion, type ParsedClaim } from './claim.js';
export { decideImageClaim, type ImageDecision, type ImageVerdict, type AssertionResult } from './decide.js';
export {
  PixelAccumulator,
  measurements,
  GRAYSCALE_TOLERANCE,
  type HeaderFacts,
  type ImageMeasurements,
  type PixelFacts,
} from './measure.js';
export { nameColor, PALETTE } from './colors.js';
