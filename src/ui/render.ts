/**
 * The render facade commands use: Ink on an interactive terminal, plain text elsewhere. Ink is
 * imported only when it is going to draw, so piped runs and `--json` never load React.
 *
 * Glossary:
 * - interactive: standard output is a TTY and we are not in CI.
 * - live view: a region redrawn in place while work goes on, replaced by the final report.
 */
import type {ReactElement} from 'react'
import {noColor} from './theme.js'

export function isInteractive(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.CI
}

/** chalk (under Ink) decides its colour level once, when first imported: set it before. */
function applyColorPolicy(): void {
  if (noColor() && process.env.FORCE_COLOR === undefined) process.env.FORCE_COLOR = '0'
}

async function ink(): Promise<typeof import('ink')> {
  applyColorPolicy()
  return import('ink')
}

/**
 * Imports a module of Ink components (`() => import('./x-view.js')`) with the colour policy in
 * force; commands import their views only through this, and only when they will draw.
 */
export async function importView<T>(load: () => Promise<T>): Promise<T> {
  applyColorPolicy()
  return load()
}

export interface LiveView {
  update(el: ReactElement): void
  /** Replaces the live region with `el`, leaves it on screen, and stops. */
  finish(el: ReactElement): Promise<void>
}

/** Starts a live region on standard output. */
export async function startLive(el: ReactElement): Promise<LiveView> {
  const {render} = await ink()
  const instance = render(el, {patchConsole: false, exitOnCtrlC: false})
  return {
    update: (next) => instance.rerender(next),
    async finish(last) {
      instance.rerender(last)
      instance.unmount()
      await instance.waitUntilExit()
    },
  }
}

/** Renders a static element once (a report) and returns when it is on screen. */
export async function renderOnce(el: ReactElement): Promise<void> {
  const {render} = await ink()
  const instance = render(el, {patchConsole: false, exitOnCtrlC: false})
  instance.unmount()
  await instance.waitUntilExit()
}
