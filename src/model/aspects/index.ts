/**
 * Every aspect the registry knows, by name. One JSON Schema per aspect, compiled once by
 * `../schemas.ts`; the schemas live in one module per area.
 */
import {ASSERTION_ASPECTS} from './assertion.js'
import {COMMON_ASPECTS} from './common.js'
import {DASHBOARD_ASPECTS} from './dashboard.js'
import {DATAJOB_ASPECTS} from './datajob.js'
import {DATASET_ASPECTS} from './dataset.js'
import {GLOSSARY_ASPECTS} from './glossary.js'
import {GOVERNANCE_ASPECTS} from './governance.js'
import {IDENTITY_ASPECTS} from './identity.js'
import {KEY_ASPECTS} from './keys.js'
import {MISC_ASPECTS} from './misc.js'
import {ML_ASPECTS} from './ml.js'
import {POLICY_ASPECTS} from './policy.js'
import {SCHEMA_ASPECTS} from './schema.js'
import {TIMESERIES_ASPECTS} from './timeseries.js'
import type {AspectSpec} from './types.js'

export type {AspectSpec, JsonSchema} from './types.js'

const specs: AspectSpec[] = [
  ...KEY_ASPECTS,
  ...GOVERNANCE_ASPECTS,
  ...COMMON_ASPECTS,
  ...DATASET_ASPECTS,
  ...SCHEMA_ASPECTS,
  ...TIMESERIES_ASPECTS,
  ...DASHBOARD_ASPECTS,
  ...DATAJOB_ASPECTS,
  ...IDENTITY_ASPECTS,
  ...GLOSSARY_ASPECTS,
  ...ML_ASPECTS,
  ...POLICY_ASPECTS,
  ...ASSERTION_ASPECTS,
  ...MISC_ASPECTS,
]

export const ASPECT_SPECS: Record<string, AspectSpec> = Object.fromEntries(specs.map((s) => [s.name, s]))

/** Aspect spec by Pegasus class name, for MCE snapshots, which name aspects by class. */
export const ASPECT_SPECS_BY_CLASS: Record<string, AspectSpec> = Object.fromEntries(specs.map((s) => [s.pdlClass, s]))
