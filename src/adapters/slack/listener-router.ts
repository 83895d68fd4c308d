// Bolt runs the middleware of every registered listener on every request, matching or not: with a
// listener per button, each slash command paid for a dozen chains that could never match, in the
// burst of requests whose acks it was holding up. Here buttons and modal submissions are
// registered by id and Bolt sees one action listener and one view listener, which look the id up.
// Whatever has no handler (a button of a future version, say) is only acknowledged, so Slack
// shows no error.

import type {
  App,
  Middleware,
  SlackAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
} from "@slack/bolt";

type ActionHandler<A extends SlackAction = SlackAction> = Middleware<SlackActionMiddlewareArgs<A>>;
type ViewHandler = Middleware<SlackViewMiddlewareArgs>;

export interface ListenerRouter {
  /** The handler of the button whose action_id is `actionId`. */
  action<A extends SlackAction = SlackAction>(actionId: string, handler: ActionHandler<A>): void;
  /** The handler of submissions of the modal whose callback_id is `callbackId`. */
  view(callbackId: string, handler: ViewHandler): void;
}

/** Registers the one action listener and the one view listener that dispatch by id. */
export function mountListenerRouter(app: App): ListenerRouter {
  const actions = new Map<string, ActionHandler>();
  const views = new Map<string, ViewHandler>();
  const once = (map: Map<string, unknown>, id: string) => {
    if (map.has(id)) throw new Error(`two handlers registered for ${id}`);
  };

  app.action(/^/, async (args) => {
    const id = "action_id" in args.action ? args.action.action_id : undefined;
    const handler = id === undefined ? undefined : actions.get(id);
    if (handler) await handler(args);
    else await args.ack();
  });
  app.view(/^/, async (args) => {
    const handler = views.get(args.view.callback_id);
    if (handler) await handler(args);
    else await args.ack();
  });

  return {
    action(actionId, handler) {
      once(actions, actionId);
      actions.set(actionId, handler as ActionHandler);
    },
    view(callbackId, handler) {
      once(views, callbackId);
      views.set(callbackId, handler);
    },
  };
}
