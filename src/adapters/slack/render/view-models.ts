// The view models are declared with the services that build them; renderers import them here.
export * from "../../../services/view-models.js";
