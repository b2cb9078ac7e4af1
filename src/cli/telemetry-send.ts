/**
 * The detached process that posts one telemetry event (see telemetry.ts): the command that
 * started it has already exited, or is exiting, without waiting for it.
 */
import {postTelemetry, type TelemetryJob} from './telemetry.js'

try {
  await postTelemetry(JSON.parse(process.argv[2] ?? '') as TelemetryJob)
} catch {
  // A malformed job: nothing to send, nobody to tell.
}
