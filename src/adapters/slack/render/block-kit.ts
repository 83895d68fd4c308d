// Block Kit shapes used by the renderers, taken from Slack's own type package through Bolt so the
// compiler checks every block we build against what the Web API accepts.

import type { types } from "@slack/bolt";

export type KnownBlock = types.KnownBlock;
export type Button = types.Button;
export type HomeView = types.HomeView;
export type ModalView = types.ModalView;
export type SectionBlock = types.SectionBlock;

/** What chat.postMessage / chat.update / chat.postEphemeral need: a notification text and blocks. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}
