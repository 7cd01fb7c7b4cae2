// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice A test chain's stand-in for a real token (USDC, USDT, CNGN, cbBTC), with the real token's decimals.
/// Only the minter (the test chain's faucet account) creates supply after deployment; the deployment itself mints
/// `initialSupply` to `holder` (the account that seeds the test chain's pools).
contract TestToken is ERC20 {
    uint8 private immutable _decimals;
    address public immutable minter;

    error NotMinter(address caller);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, address minter_, address holder, uint256 initialSupply)
        ERC20(name_, symbol_)
    {
        _decimals = decimals_;
        minter = minter_;
        if (initialSupply > 0) _mint(holder, initialSupply);
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter(msg.sender);
        _mint(to, amount);
    }
}
