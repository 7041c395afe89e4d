-- Trunk registrations as the SIP gateways report them (docs/architecture.md §11 "Registration", §12). A trunk with
-- `register` on is REGISTERed by every gateway (each with its own Contact); each gateway publishes its registration's
-- state on the bus and the control plane keeps the last one here, for the trunk reads to show. A row goes when the
-- gateway unregisters, or its trunk is deleted; a gateway that died leaves a row the reads stop showing once it is
-- stale (see sip-registration-repository.ts).
create table sip_trunk_registrations (
  trunk_id      char(24) not null references sip_trunks (id) on delete cascade,
  gateway_id    text not null check (length(gateway_id) between 1 and 200),
  state         text not null check (state in ('registering', 'registered', 'failing')),
  -- The registrar's last final status (408: it did not answer) and its reason phrase.
  sip_status    integer check (sip_status between 100 and 699),
  reason        text,
  -- While registered: when the granted registration runs out.
  expires_at    timestamptz,
  -- When the gateway reached this state (its clock): an older report never overwrites a newer one.
  reported_at   timestamptz not null,
  primary key (trunk_id, gateway_id)
);
