// A new session's form: "criticals off" belongs to the systems whose rolls read it, so it
// is shown only while one of them is picked (without JavaScript it stays, and the server
// ignores it for the others).
(function () {
  const system = document.getElementById("id_system");
  const only = document.querySelector("[data-only-systems]");
  if (!system || !only) return;
  const systems = only.dataset.onlySystems.split(" ");
  const sync = () => {
    only.hidden = !systems.includes(system.value);
  };
  system.addEventListener("change", sync);
  sync();
})();
